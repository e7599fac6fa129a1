import type { LedgerEvent } from '@noetl/event-kernel';
import type { Queryable } from './database';
import { EVENT_SELECT_LIST, toLedgerEvent, type EventRow } from './event-row';
import { prepared } from './prepared-statements';
import type { TenantScope } from './storage-error';

/**
 * A place in the ledger's commit order: the id of the transaction that wrote
 * the event (`noetl.event.tx`, an xid8, as decimal text) and the event id.
 * Events written before the ledger had `tx` have tx 0 and follow event ids.
 */
export interface TailPosition {
  tx: string;
  eventId: string;
}

/** Before the first event. */
export const TAIL_START: TailPosition = Object.freeze({ tx: '0', eventId: '0' });

export interface TailEvent {
  event: LedgerEvent;
  position: TailPosition;
}

export interface TailRead {
  /** The events after the position, in commit order, up to the limit. */
  events: TailEvent[];
  /**
   * A short read that left events behind: committed, but written by a
   * transaction that began after one still running, which may yet commit
   * events before them. Read again shortly (that one may write no event,
   * and so wake nobody when it ends).
   */
  heldBack: boolean;
}

/**
 * Ended transactions only: every transaction of this database below the
 * oldest one still running here has committed or rolled back, so nothing
 * can commit before an event read here once it is read.
 *
 * Transaction ids are the cluster's, so the snapshot's xmin alone would
 * wait on a writing transaction of any database on the server (another
 * application's long batch, a playbook's postgres step in a database of its
 * own), and the relay and the projector would stall behind it. A running
 * transaction is skipped only when it is proven to be another database's:
 * `pg_locks`, read after the snapshot, shows it holding a relation of
 * another database (a backend only ever opens relations of its own database
 * and shared catalogs, database 0). Anything unproven, such as a
 * transaction that ended between the snapshot and that read, still holds
 * the tail back, as xmin would have. `pg_locks` is readable by any role.
 * Without running transactions (xmin = xmax) no lock is read. The
 * watermark is an init plan, evaluated once, so `idx_event_tail` serves
 * both bounds.
 */
const WATERMARK = `(
  WITH snapshot AS (SELECT pg_current_snapshot() AS s),
       locks AS MATERIALIZED (SELECT locktype, database, virtualtransaction, transactionid FROM pg_locks),
       elsewhere AS (
         SELECT transactionid FROM locks
          WHERE locktype = 'transactionid'
            AND virtualtransaction IN (
              SELECT virtualtransaction FROM locks
               WHERE locktype = 'relation' AND database NOT IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))))
  SELECT CASE WHEN pg_snapshot_xmin(s) = pg_snapshot_xmax(s) THEN pg_snapshot_xmax(s)
              ELSE coalesce((SELECT min(x) FROM pg_snapshot_xip(s) AS x WHERE xid(x) NOT IN (SELECT transactionid FROM elsewhere)), pg_snapshot_xmax(s))
         END
    FROM snapshot)`;
const TAIL_COLUMNS = `${EVENT_SELECT_LIST}, tx::text AS tx`;
const READ_TAIL_SQL = prepared(`
  SELECT ${TAIL_COLUMNS} FROM noetl.event
   WHERE (tx, event_id) > ($1::xid8, $2::bigint) AND tx < ${WATERMARK}
   ORDER BY tx, event_id LIMIT $3`);
const READ_SCOPED_TAIL_SQL = prepared(`
  SELECT ${TAIL_COLUMNS} FROM noetl.event
   WHERE (tx, event_id) > ($1::xid8, $2::bigint) AND tx < ${WATERMARK} AND tenant_id = $4 AND organization_id = $5
   ORDER BY tx, event_id LIMIT $3`);
/**
 * Whether any event waits at or past the watermark, as the newest event's tx
 * against it: one step down `idx_event_tail` from its end. Written as `WHERE
 * tx >= watermark LIMIT 1`, the planner, which cannot know the watermark,
 * scanned the whole table hoping for an early match, and a caught-up tail
 * (none matches) read every event of the ledger on each poll.
 */
const HELD_BACK_SQL = prepared(`SELECT (SELECT max(tx) FROM noetl.event) >= ${WATERMARK} AS held_back`);

/** The events committed after `after`, oldest first (`TailRead`); of one tenant's organization when `scope` is given. */
export async function readTail(q: Queryable, after: TailPosition, limit: number, scope?: TenantScope): Promise<TailRead> {
  const rows = await q.query<EventRow & { tx: string }>(scope ? READ_SCOPED_TAIL_SQL : READ_TAIL_SQL, [
    after.tx,
    after.eventId,
    limit,
    ...(scope ? [scope.tenantId, scope.organizationId] : []),
  ]);
  const events = rows.map((row) => ({ event: toLedgerEvent(row), position: { tx: row.tx, eventId: String(row.event_id) } }));
  const heldBack = events.length < limit && (await q.query<{ held_back: boolean | null }>(HELD_BACK_SQL))[0]?.held_back === true;
  return { events, heldBack };
}

/** Events committed after `after` (held back ones too), and the age in seconds of the oldest (0 when none). */
export async function tailBacklog(
  q: Queryable,
  after: TailPosition,
  scope?: TenantScope,
): Promise<{ events: number; oldestAgeSeconds: number }> {
  const [row] = await q.query<{ events: number; age: number | null }>(
    `SELECT count(*)::int AS events, EXTRACT(EPOCH FROM now() - min(ingest_time))::float8 AS age FROM noetl.event
      WHERE (tx, event_id) > ($1::xid8, $2::bigint) AND ($3::text IS NULL OR (tenant_id = $3 AND organization_id = $4))`,
    [after.tx, after.eventId, scope?.tenantId ?? null, scope?.organizationId ?? null],
  );
  return { events: row?.events ?? 0, oldestAgeSeconds: Math.max(0, row?.age ?? 0) };
}
