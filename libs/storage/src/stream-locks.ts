import type { LedgerEvent } from '@noetl/event-kernel';
import { enqueueWrite, isTransaction, type Queryable } from './database';
import { sqlLiteral } from './pipelined-transaction';

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
    // Written into the text (no parameter) and queued: it goes with the transaction's BEGIN and its next statement.
    await enqueueWrite(q, `SELECT pg_advisory_xact_lock(hashtextextended(${sqlLiteral(streamId)}, 0))`);
    if (!remember) continue;
    if (!locks) held.set(q, (locks = new Set()));
    locks.add(streamId);
  }
}

/**
 * A select-list item that reads the head of the stream `$n` names, for a
 * statement run under that stream's lock: its value goes to `noteHeads`,
 * and the append that follows reads the head no more.
 */
export function streamHeadColumn(param: number): string {
  return `(SELECT e.stream_version FROM noetl.event e WHERE e.stream_id = $${param} ORDER BY e.stream_version DESC LIMIT 1) AS stream_head`;
}

/**
 * `row` without the `stream_head` its statement read under the lock of
 * `streamId` (`streamHeadColumn`; null: an empty stream), which is noted as
 * that stream's head.
 */
export function takeStreamHead<T extends { stream_head: number | null }>(q: Queryable, streamId: string, row: T): Omit<T, 'stream_head'> {
  const { stream_head: head, ...rest } = row;
  noteHeads(q, new Map([[streamId, head ?? 0]]));
  return rest;
}

/** What one transaction appended to a stream it holds the lock of: the stream's head before, and the events since, in order. */
export interface AppendedWithin {
  before: number;
  events: LedgerEvent[];
}

const heads = new WeakMap<Queryable, Map<string, number>>();
const appended = new WeakMap<Queryable, Map<string, AppendedWithin>>();

/**
 * The version of each stream's last event as `q`'s transaction last read or
 * wrote it, for the streams it holds the lock of (nobody else appends to
 * them until it ends); unknown ones are left out. Saves an append the read
 * of a head it already knows.
 */
export function knownHeads(q: Queryable, streamIds: readonly string[]): Map<string, number> {
  const known = new Map<string, number>();
  const locks = held.get(q);
  const byStream = heads.get(q);
  if (!locks || !byStream) return known;
  for (const streamId of streamIds) {
    const head = byStream.get(streamId);
    if (head !== undefined && locks.has(streamId)) known.set(streamId, head);
  }
  return known;
}

/**
 * Records the heads `q`'s transaction read under its locks (outside a
 * transaction, nothing). A head lower than one it knows already is kept
 * higher: the read could not see the events the transaction deferred.
 */
export function noteHeads(q: Queryable, read: ReadonlyMap<string, number>): void {
  const locks = held.get(q);
  if (!locks) return;
  let byStream = heads.get(q);
  if (!byStream) heads.set(q, (byStream = new Map()));
  for (const [streamId, version] of read) if (locks.has(streamId)) byStream.set(streamId, Math.max(version, byStream.get(streamId) ?? 0));
}

/** Records events `q`'s transaction appended, in stream order per stream: they move the heads, and `appendedWithin` lists them. */
export function noteAppended(q: Queryable, events: readonly LedgerEvent[]): void {
  const locks = held.get(q);
  if (!locks) return;
  let byStream = heads.get(q);
  if (!byStream) heads.set(q, (byStream = new Map()));
  let lists = appended.get(q);
  if (!lists) appended.set(q, (lists = new Map()));
  for (const event of events) {
    if (!locks.has(event.stream_id)) continue;
    const list = lists.get(event.stream_id);
    if (list) list.events.push(event);
    else lists.set(event.stream_id, { before: event.stream_version - 1, events: [event] });
    byStream.set(event.stream_id, event.stream_version);
  }
}

/** The events `q`'s transaction appended to `streamId` so far (under its lock), with the head before the first; undefined when none. */
export function appendedWithin(q: Queryable, streamId: string): AppendedWithin | undefined {
  return appended.get(q)?.get(streamId);
}
