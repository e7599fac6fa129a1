import { EventType, rowJson, type EventEnvelope, type LedgerEvent } from '@noetl/event-kernel';
import { enqueueWrite, type Queryable } from './database';
import { EVENT_SELECT_LIST } from './event-row';
import { TERMINAL_EVENT_TYPES_SQL } from './event-unique-keys';
import { prepared } from './prepared-statements';
import { SqlState } from './db-errors';
import { StorageError } from './storage-error';

/** The batch's rows: $1 the sealed envelopes as one JSON array (each an event row). */
const BATCH_ROWS = `WITH b AS (
  SELECT r.*, d.ord
    FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS d(doc, ord),
         jsonb_populate_record(NULL::noetl.event, d.doc) AS r
)`;

/**
 * A batch of sealed events in ONE statement. All or
 * nothing against what is committed: when any event collides with a stored
 * one on a unique index (the same keys as `uniqueKeyLookups`), nothing is
 * inserted and the caller appends one by one. Only a rival still in flight
 * (a concurrent writer of the same idempotency key on another stream) can
 * make ON CONFLICT drop a row here.
 *
 * Each key is its own LATERAL probe per row of the batch (LIMIT 1 keeps it
 * a parameterised index lookup whatever the statistics say), so the check
 * costs a few index probes per row, whatever the ledger's size. The same
 * tests written as EXISTS ... OR EXISTS ... ran as hashed subplans that read
 * the whole event table on every append; written as plain joins, stale
 * statistics had the planner scan whole partial indexes with a join filter.
 */
const BATCH_INSERT_SQL = prepared(`
${BATCH_ROWS}, clash AS (
  SELECT 1 FROM b x, LATERAL (SELECT 1 FROM noetl.event e WHERE e.event_id = x.event_id LIMIT 1) hit
  UNION ALL
  SELECT 1 FROM b x, LATERAL (SELECT 1 FROM noetl.event e WHERE e.stream_id = x.stream_id AND e.stream_version = x.stream_version LIMIT 1) hit
  UNION ALL
  SELECT 1 FROM b x, LATERAL (SELECT 1 FROM noetl.event e
                               WHERE e.execution_id = x.execution_id AND e.command_id = x.command_id AND e.event_type = '${EventType.CommandIssued}' LIMIT 1) hit
   WHERE x.event_type = '${EventType.CommandIssued}'
  UNION ALL
  SELECT 1 FROM b x, LATERAL (SELECT 1 FROM noetl.event e
                               WHERE e.execution_id = x.execution_id AND e.loop_id = x.loop_id AND e.event_type = '${EventType.LoopDone}' LIMIT 1) hit
   WHERE x.event_type = '${EventType.LoopDone}'
  UNION ALL
  SELECT 1 FROM b x, LATERAL (SELECT 1 FROM noetl.event e WHERE e.execution_id = x.execution_id AND e.event_type IN ${TERMINAL_EVENT_TYPES_SQL} LIMIT 1) hit
   WHERE x.event_type IN ${TERMINAL_EVENT_TYPES_SQL}
  UNION ALL
  SELECT 1 FROM b x, LATERAL (SELECT 1 FROM noetl.event e WHERE e.tenant_id = x.tenant_id AND e.idempotency_key = x.idempotency_key LIMIT 1) hit
   WHERE x.idempotency_key IS NOT NULL
), ins AS (
  INSERT INTO noetl.event (${EVENT_SELECT_LIST})
  SELECT ${EVENT_SELECT_LIST} FROM b
   WHERE NOT EXISTS (SELECT 1 FROM clash)
   ORDER BY ord
  ON CONFLICT DO NOTHING
  RETURNING event_id
)
SELECT event_id FROM ins`);

/**
 * Events that carry no unique key but their id and stream position (what
 * may be deferred, see AppendOptions.defer), with no ON CONFLICT: under their streams' locks nothing can collide with them, so
 * a collision is an error that fails the transaction rather than a row
 * quietly dropped. Its result is not read: it is queued (enqueueWrite) and
 * goes with the transaction's next statement or its COMMIT.
 */
const STRICT_INSERT_SQL = prepared(`
${BATCH_ROWS}
INSERT INTO noetl.event (${EVENT_SELECT_LIST}) SELECT ${EVENT_SELECT_LIST} FROM b ORDER BY ord`);

/** Queues the strict insert of `sealed` (see STRICT_INSERT_SQL). */
export async function enqueueStrictInsert(q: Queryable, sealed: readonly EventEnvelope[]): Promise<void> {
  if (sealed.length === 0) return;
  await enqueueWrite(q, STRICT_INSERT_SQL, [rowsJson(sealed)]);
}

/** The batch's parameter: its envelopes as one JSON array. */
function rowsJson(sealed: readonly EventEnvelope[]): string {
  return `[${sealed.map(rowJson).join(',')}]`;
}

/** A rival still in flight took a key of the batch and left a hole in a stream: the transaction is to be retried as is. */
export class BatchRaceError extends StorageError {
  readonly code = SqlState.SerializationFailure;
}

/**
 * Inserts the sealed events (dense versions, under their streams' locks) in
 * one round trip: the batch goes as one JSON document (each element an envelope), and
 * only the ids of the rows that went in come back. Returns those events by
 * event id, exactly as sealed (what the row holds: nothing is read back),
 * or null when nothing was inserted (something collides: append one by
 * one). Throws BatchRaceError when a row was dropped before a kept row of
 * its stream (a version hole); rows dropped only at a stream's end are for
 * the caller to resolve as duplicates.
 */
export async function insertBatch(q: Queryable, sealed: readonly EventEnvelope[]): Promise<Map<string, LedgerEvent> | null> {
  const rows = await q.query<{ event_id: string }>(BATCH_INSERT_SQL, [rowsJson(sealed)]);
  if (rows.length === 0) return null;
  const inserted = new Set(rows.map((row) => String(row.event_id)));
  const stored = new Map(
    sealed.flatMap((event) => (inserted.has(event.event_id) ? [[event.event_id, event as LedgerEvent] as const] : [])),
  );
  if (stored.size < sealed.length) {
    const holed = new Set<string>();
    for (const event of sealed) {
      if (!stored.has(event.event_id)) holed.add(event.stream_id);
      else if (holed.has(event.stream_id))
        throw new BatchRaceError(`a concurrent append took a key of ${event.stream_id}'s batch; retry the transaction`);
    }
  }
  return stored;
}
