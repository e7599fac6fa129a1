import { isTransaction, type Queryable } from './database';
import { prepared } from './prepared-statements';

const LOCK_STREAM_SQL = prepared('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))');

/**
 * The stream locks each open transaction already holds. An advisory xact
 * lock lasts until its transaction ends and a transaction's Queryable is made
 * for it alone (Database.transaction), so asking again on the same Queryable
 * is a round trip that changes nothing: the scheduler's pass and every
 * control-plane call lock the stream first and then append to it.
 */
const held = new WeakMap<Queryable, Set<string>>();

/**
 * Takes the append lock of each stream, in sorted order (two writers never
 * wait on each other in a cycle), once per transaction. Outside one of
 * Database.transaction's (the pool, a dedicated connection) nothing is
 * remembered: the lock may end before the Queryable does.
 */
export async function lockStreams(q: Queryable, streamIds: Iterable<string>): Promise<void> {
  const remember = isTransaction(q);
  let locks = remember ? held.get(q) : undefined;
  for (const streamId of [...new Set(streamIds)].sort()) {
    if (locks?.has(streamId)) continue;
    await q.query(LOCK_STREAM_SQL, [streamId]);
    if (!remember) continue;
    if (!locks) held.set(q, (locks = new Set()));
    locks.add(streamId);
  }
}
