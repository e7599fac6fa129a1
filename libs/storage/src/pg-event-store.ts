import {
  EventType,
  isTerminalExecutionEvent,
  sealEvent,
  type AnyNewEvent,
  type EventEnvelope,
  type LedgerEvent,
} from '@noetl/event-kernel';
import { isRetryableTransactionError } from './db-errors';
import type { Database, Queryable } from './database';
import { EVENT_SELECT_LIST, INSERT_EVENT_SQL, eventInsertParams, normaliseNewEvent, toLedgerEvent, type EventRow } from './event-row';
import { EventKeyTakenError, StreamVersionConflict, type AppendOptions, type AppendResult, type EventStore } from './event-store';
import { EventUniqueKey, distinctiveKeys, uniqueKeyLookups } from './event-unique-keys';
import { enqueueStrictInsert, insertBatch } from './batch-append';
import { prepared } from './prepared-statements';
import { StorageError } from './storage-error';
import { transactionOf, type LedgerTransaction } from './ledger-transaction';
import { lockStreams } from './stream-locks';

/** Deadlocks between batches that collide on unique keys in opposite orders are retried whole. */
const APPEND_ATTEMPTS = 3;

/**
 * The ledger on PostgreSQL.
 *
 * Stream versions: the batch takes a transaction advisory lock per distinct
 * stream (sorted, so two batches never wait on each other in a cycle), reads
 * each stream's current version, then inserts the events one by one with the
 * next version. A row that collides on any unique index is not inserted
 * (`ON CONFLICT DO NOTHING`) and does not consume a version: the next event of
 * that stream gets the same number again, so versions stay dense whatever the
 * duplicates. The collided row is found by trying the event's unique keys in
 * order (`uniqueKeyLookups`) and returned with `duplicate: true`; a row that
 * shares only the stream position is another event, so that is a
 * StreamVersionConflict, never a duplicate.
 *
 * `appendWithin` expects the caller's transaction at READ COMMITTED (the
 * default): each statement must see rows committed while it waited for a lock.
 */
export class PgEventStore implements EventStore {
  constructor(
    private readonly db: Database,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Its own transaction. The events carry their ids, so the append is
   * idempotent: when the connection is lost, also during COMMIT (in doubt,
   * issue 29), it runs again, and an event found stored under its own id is
   * the first run's, committed after all: reported as appended, not as a duplicate.
   */
  async append(events: AnyNewEvent[], options: AppendOptions = {}): Promise<AppendResult[]> {
    let runs = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        const results = await this.db.transaction(
          (q) => {
            runs++;
            return this.appendWithin(q, events, options);
          },
          { idempotent: true },
        );
        return runs > 1
          ? results.map((result, i) =>
              result.duplicate && result.event.event_id === events[i]?.event_id ? { ...result, duplicate: false } : result,
            )
          : results;
      } catch (error) {
        // Run again after an in-doubt COMMIT that did commit: its expected version has moved on, by its own events.
        if (runs > 1 && error instanceof StreamVersionConflict) {
          const stored = await this.storedByIds(events);
          if (stored) return stored.map((event) => ({ event, duplicate: false }));
        }
        if (attempt >= APPEND_ATTEMPTS || !isRetryableTransactionError(error)) throw error;
      }
    }
  }

  /** `events` as stored, in their order, when every one of them is (by its id); else undefined. */
  private async storedByIds(events: AnyNewEvent[]): Promise<LedgerEvent[] | undefined> {
    const rows = await this.db.query<EventRow>(`SELECT ${EVENT_SELECT_LIST} FROM noetl.event WHERE event_id = ANY($1::bigint[])`, [
      events.map((e) => e.event_id),
    ]);
    const byId = new Map(rows.map((row) => [String(row.event_id), toLedgerEvent(row)]));
    const stored = events.map((e) => byId.get(e.event_id));
    return stored.every((e): e is LedgerEvent => e !== undefined) ? stored : undefined;
  }

  /** `append` inside the caller's transaction; a StreamVersionConflict leaves the rollback to the caller. */
  async appendWithin(q: Queryable, events: AnyNewEvent[], options: AppendOptions = {}): Promise<AppendResult[]> {
    const normalised = events.map((event) => normaliseNewEvent(event));
    const expected = options.expectedVersion;
    const streams = [...new Set([...normalised.map((e) => e.stream_id), ...(expected ? [expected.streamId] : [])])].sort();
    const tx = transactionOf(q);
    await lockStreams(q, streams);
    const versions = await this.headsWithin(q, tx, streams);
    if (expected) {
      const actual = versions.get(expected.streamId) ?? 0;
      if (actual !== expected.version) throw new StreamVersionConflict(expected.streamId, expected.version, actual);
    }

    const ingestTime = this.clock();
    const sealInOrder = (): EventEnvelope[] => {
      const next = new Map(versions);
      return normalised.map((event) => {
        const version = (next.get(event.stream_id) ?? 0) + 1;
        next.set(event.stream_id, version);
        return sealEvent(event, version, ingestTime);
      });
    };
    if (options.defer && tx && !expected && normalised.every((event) => deferrable(event, options.minted === true))) {
      const sealed = sealInOrder();
      defer(tx, sealed);
      tx.noteAppended(sealed as LedgerEvent[]);
      return sealed.map((event) => ({ event: event as LedgerEvent, duplicate: false }));
    }
    // What earlier appends of this transaction deferred goes in first, in the same statement when it can.
    const deferred = tx?.takeDeferred() ?? [];
    if (!sharesAKey(normalised)) {
      // One round trip for the batch; null: something collides, so one by one below.
      const sealed = sealInOrder();
      const stored = await insertBatch(q, [...deferred, ...sealed]);
      if (stored) {
        const missing = deferred.find((event) => !stored.has(event.event_id));
        if (missing)
          throw new UnresolvedCollisionError(
            `deferred ${missing.event_type} ${missing.event_id} was not inserted; it carries no key but its id and position`,
          );
        tx?.noteAppended(sealed.flatMap((event) => stored.get(event.event_id) ?? []));
        const results: AppendResult[] = [];
        for (const event of sealed) {
          const kept = stored.get(event.event_id);
          results.push(kept ? { event: kept, duplicate: false } : { event: await findCollision(q, event), duplicate: true });
        }
        return results;
      }
    }
    await enqueueStrictInsert(q, deferred);
    const results: AppendResult[] = [];
    const appended: LedgerEvent[] = [];
    for (const event of normalised) {
      const version = (versions.get(event.stream_id) ?? 0) + 1;
      const sealed: EventEnvelope = sealEvent(event, version, ingestTime);
      const [inserted] = await q.query<EventRow>(INSERT_EVENT_SQL, eventInsertParams(sealed));
      if (inserted) {
        versions.set(event.stream_id, version);
        const stored = toLedgerEvent(inserted);
        appended.push(stored);
        results.push({ event: stored, duplicate: false });
      } else {
        results.push({ event: await findCollision(q, sealed), duplicate: true });
      }
    }
    tx?.noteAppended(appended);
    return results;
  }

  /**
   * Each stream's head: known to the transaction when it read or wrote it
   * already under the lock it still holds (a report and the scheduler's
   * decisions on it, appended in one transaction, read it once), else read.
   */
  private async headsWithin(q: Queryable, tx: LedgerTransaction | undefined, streams: readonly string[]): Promise<Map<string, number>> {
    const heads = tx?.knownHeads(streams) ?? new Map<string, number>();
    const unknown = streams.filter((stream) => !heads.has(stream));
    if (unknown.length === 0) return heads;
    const read = await currentVersions(q, unknown);
    for (const stream of unknown) {
      const version = read.get(stream) ?? 0;
      tx?.noteHead(stream, version);
      heads.set(stream, version);
    }
    return heads;
  }

  /** Queues the insert of what `q`'s transaction deferred so far (`AppendOptions.defer`): the read of the ledger that follows carries it, and sees it. */
  async flushWithin(q: Queryable): Promise<void> {
    await enqueueStrictInsert(q, transactionOf(q)?.takeDeferred() ?? []);
  }

  async readStream(streamId: string, fromVersion = 1): Promise<LedgerEvent[]> {
    const rows = await this.db.query<EventRow>(
      `SELECT ${EVENT_SELECT_LIST} FROM noetl.event
        WHERE stream_id = $1 AND stream_version >= $2::int
        ORDER BY stream_version`,
      [streamId, fromVersion],
    );
    return rows.map(toLedgerEvent);
  }

  async streamVersion(streamId: string): Promise<number> {
    return (await currentVersions(this.db, [streamId])).get(streamId) ?? 0;
  }
}

/** Keeps `sealed` in `tx` (`AppendOptions.defer`); nothing deferred outlives the transaction: what no later append took goes in before the commit. */
function defer(tx: LedgerTransaction, sealed: readonly EventEnvelope[]): void {
  if (tx.defer(sealed)) tx.onBeforeCommit(() => enqueueStrictInsert(tx, tx.takeDeferred()));
}

/**
 * Whether an event may be deferred: it carries no unique key but its id and
 * stream position, or (`minted`, see AppendOptions) no key but those the
 * caller vouches for, its idempotency key and its command's issue.
 */
function deferrable(event: AnyNewEvent, minted: boolean): boolean {
  if (distinctiveKeys(event).length === 0) return true;
  return minted && event.event_type !== EventType.LoopDone && !isTerminalExecutionEvent(event.event_type);
}

/**
 * Whether two events of the batch share a unique key (a batch that repeats
 * itself): the one-statement insert would drop the second and leave a hole
 * in its stream, so such a batch goes one by one.
 */
function sharesAKey(events: readonly AnyNewEvent[]): boolean {
  const seen = new Set<string>();
  const taken = (key: string): boolean => seen.size === seen.add(key).size;
  return events.some((event) => [`id:${event.event_id}`, ...distinctiveKeys(event)].some(taken));
}

class UnresolvedCollisionError extends StorageError {
  readonly code = 'event_collision_unresolved';
}

const CURRENT_VERSIONS_SQL = prepared(`
  SELECT s.stream_id,
         (SELECT e.stream_version FROM noetl.event e WHERE e.stream_id = s.stream_id ORDER BY e.stream_version DESC LIMIT 1) AS version
    FROM unnest($1::text[]) AS s(stream_id)`);

/**
 * Each stream's latest version, one index probe per stream (the top of
 * `uidx_event_stream_version`): the cost of an append must not grow with the
 * stream's history, as a `max() ... GROUP BY` over every event of it does.
 */
async function currentVersions(q: Queryable, streamIds: string[]): Promise<Map<string, number>> {
  if (streamIds.length === 0) return new Map();
  const rows = await q.query<{ stream_id: string; version: number | null }>(CURRENT_VERSIONS_SQL, [streamIds]);
  return new Map(rows.flatMap((row) => (row.version === null ? [] : [[row.stream_id, row.version] as const])));
}

/**
 * The stored event a sealed one collided with. Under READ COMMITTED each
 * lookup sees the rival's row: ON CONFLICT waited for its transaction to
 * commit before it gave up on ours.
 */
async function findCollision(q: Queryable, sealed: EventEnvelope): Promise<LedgerEvent> {
  for (const lookup of uniqueKeyLookups(sealed)) {
    const [row] = await q.query<EventRow>(`SELECT ${EVENT_SELECT_LIST} FROM noetl.event WHERE ${lookup.where} LIMIT 1`, lookup.params);
    if (!row) continue;
    if (lookup.key === EventUniqueKey.StreamVersion) {
      // Only the stream position is shared: someone appended without the stream lock.
      // That is a different event, not a duplicate of ours; refuse rather than lose ours.
      const actual = (await currentVersions(q, [sealed.stream_id])).get(sealed.stream_id) ?? 0;
      throw new StreamVersionConflict(sealed.stream_id, sealed.stream_version - 1, actual);
    }
    if (row.tenant_id !== sealed.tenant_id || row.organization_id !== sealed.organization_id) {
      throw new EventKeyTakenError(
        `${sealed.event_type} ${sealed.event_id} collides on ${lookup.key} with an event of another tenant or organization`,
      );
    }
    return toLedgerEvent(row);
  }
  throw new UnresolvedCollisionError(
    `${sealed.event_type} ${sealed.event_id} was not inserted, yet no stored event shares a unique key with it`,
  );
}
