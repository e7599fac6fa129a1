import type { Queryable } from './database';
import { streamLockSql, transactionOf } from './ledger-transaction';

/**
 * Takes the append lock of each stream, in sorted order (two writers never
 * wait on each other in a cycle): once per transaction in one of
 * Database.transaction's (LedgerTransaction.lockStreams). Elsewhere (the
 * pool, a dedicated connection) each goes at once and nothing is
 * remembered: the lock may end before the Queryable does.
 */
export async function lockStreams(q: Queryable, streamIds: Iterable<string>): Promise<void> {
  const tx = transactionOf(q);
  if (tx) return tx.lockStreams(streamIds);
  for (const streamId of [...new Set(streamIds)].sort()) await q.query(streamLockSql(streamId), []);
}

/**
 * A select-list item that reads the head of the stream `$n` names, for a
 * statement run under that stream's lock: its value goes to
 * LedgerTransaction.noteHead (`takeStreamHead`), and the append that
 * follows reads the head no more.
 */
export function streamHeadColumn(param: number): string {
  return `(SELECT e.stream_version FROM noetl.event e WHERE e.stream_id = $${param} ORDER BY e.stream_version DESC LIMIT 1) AS stream_head`;
}

/**
 * `row` without the `stream_head` its statement read under the lock of
 * `streamId` (`streamHeadColumn`; null: an empty stream), which `q`'s
 * transaction notes as that stream's head.
 */
export function takeStreamHead<T extends { stream_head: number | null }>(q: Queryable, streamId: string, row: T): Omit<T, 'stream_head'> {
  const { stream_head: head, ...rest } = row;
  transactionOf(q)?.noteHead(streamId, head ?? 0);
  return rest;
}
