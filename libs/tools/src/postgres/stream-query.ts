import type { PoolClient } from 'pg';
import type { StreamChunk } from '../tool';
import { shapeStatementResult } from './shape-pg-result';

/** The cursor a streamed query is read through, in its own transaction. */
const CURSOR = 'noetl_stream';

/** What a streamed query returns once every chunk was handed on (the rows went in the chunks). */
export interface StreamSummary {
  status: 'success';
  statement_count: 1;
  rows: [];
  row_count: number;
  columns: string[];
  chunk_count: number;
}

/**
 * Reads one query through a server-side cursor (`DECLARE ... NO SCROLL
 * CURSOR`, then `FETCH FORWARD chunkRows` until it runs dry) on a client
 * that is inside a transaction, and hands each chunk to `emit` in order. A
 * chunk is handed on once the next one is read, so it knows whether more
 * follow: at most two chunks are held, whatever the total. An empty result
 * emits nothing.
 */
export async function streamQuery(
  client: PoolClient,
  query: { text: string; values?: unknown[] },
  chunkRows: number,
  emit: (chunk: StreamChunk) => Promise<void>,
): Promise<StreamSummary> {
  await client.query({ text: `DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${query.text}`, ...(query.values ? { values: query.values } : {}) });
  const fetch = async () => shapeStatementResult(await client.query(`FETCH FORWARD ${chunkRows} FROM ${CURSOR}`));
  let held = await fetch();
  const columns = held.columns;
  let index = 0;
  let total = 0;
  while (held.rows.length > 0) {
    const next = held.rows.length < chunkRows ? undefined : await fetch();
    const hasMore = (next?.rows.length ?? 0) > 0;
    await emit({ chunk_index: index, rows: held.rows, columns, has_more: hasMore });
    total += held.rows.length;
    index += 1;
    if (!next) break;
    held = next;
  }
  await client.query(`CLOSE ${CURSOR}`);
  return { status: 'success', statement_count: 1, rows: [], row_count: total, columns, chunk_count: index };
}
