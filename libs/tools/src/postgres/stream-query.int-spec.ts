import { CallError } from '@noetl/dsl';
import type { StreamChunk } from '../tool';
import { PostgresTool } from './postgres.tool';
import { testToolContext } from '../testing/tool-context';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** `postgres` with `stream` (DSL.md s3): a cursor read chunk by chunk, each chunk handed on before the next is asked for. */
describe('PostgresTool streaming through a cursor', () => {
  const tool = new PostgresTool({ connectTimeoutMs: 3_000 });
  afterAll(() => tool.close());

  /** Runs `config` streaming; records each chunk and what the server had been asked for when it arrived. */
  async function stream(config: Record<string, unknown>) {
    const chunks: StreamChunk[] = [];
    const ctx = testToolContext({}, { onPartial: async (chunk) => void chunks.push(chunk) });
    const result = (await tool.run({ connection: DATABASE_URL, ...config }, ctx)) as Record<string, unknown>;
    return { result, chunks };
  }

  it('emits the rows in chunks of chunk_rows, in order, the last with has_more false, and returns the totals without the rows', async () => {
    const { result, chunks } = await stream({
      query: 'SELECT g AS n, g * 2 AS twice FROM generate_series(1, $1::int) g ORDER BY g',
      params: [25],
      stream: { chunk_rows: 10 },
    });
    expect(chunks.map((c) => [c.chunk_index, c.rows.length, c.has_more])).toEqual([
      [0, 10, true],
      [1, 10, true],
      [2, 5, false],
    ]);
    expect(chunks[2]?.rows.at(-1)).toEqual({ n: 25, twice: 50 });
    expect(chunks[0]?.columns).toEqual(['n', 'twice']);
    expect(result).toEqual({ status: 'success', statement_count: 1, rows: [], row_count: 25, columns: ['n', 'twice'], chunk_count: 3 });
  });

  it('knows the last full chunk is the last (it reads one chunk ahead), and emits nothing for no rows', async () => {
    const exact = await stream({ query: 'SELECT g FROM generate_series(1, 20) g', stream: { chunk_rows: 10 } });
    expect(exact.chunks.map((c) => c.has_more)).toEqual([true, false]);
    const none = await stream({ query: 'SELECT g FROM generate_series(1, 0) g', stream: { chunk_rows: 10 } });
    expect(none.chunks).toEqual([]);
    expect(none.result).toMatchObject({ row_count: 0, chunk_count: 0 });
  });

  it('waits for each chunk to be taken before it hands on the next (at most two chunks held)', async () => {
    const overlapping: number[] = [];
    let taking = false;
    const ctx = testToolContext(
      {},
      {
        onPartial: async (chunk) => {
          if (taking) overlapping.push(chunk.chunk_index);
          taking = true;
          // A slow receiver: several turns of the event loop, in which the tool could read on if it did not wait.
          for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
          taking = false;
        },
      },
    );
    const result = await tool.run(
      { connection: DATABASE_URL, query: 'SELECT g FROM generate_series(1, 50) g', stream: { chunk_rows: 10 } },
      ctx,
    );
    expect(result).toMatchObject({ chunk_count: 5 });
    expect(overlapping).toEqual([]);
  });

  it('fails the call with the failing report, and rejects a stream of several statements or without a receiver', async () => {
    const failing = testToolContext(
      {},
      { onPartial: async () => Promise.reject(new CallError({ kind: 'internal', message: 'reporting chunk 0 failed', retryable: true })) },
    );
    await expect(tool.run({ connection: DATABASE_URL, query: 'SELECT 1', stream: { chunk_rows: 1 } }, failing)).rejects.toMatchObject({
      info: { message: 'reporting chunk 0 failed' },
    });
    await expect(stream({ command: 'SELECT 1; SELECT 2', stream: { chunk_rows: 1 } })).rejects.toMatchObject({
      info: { message: expect.stringContaining('stream reads one query, got 2 statements') },
    });
    await expect(
      tool.run({ connection: DATABASE_URL, query: 'SELECT 1', stream: { chunk_rows: 1 } }, testToolContext({})),
    ).rejects.toMatchObject({
      info: { message: expect.stringContaining('a result cannot stream here') },
    });
    await expect(stream({ query: 'SELECT * FROM no_such_table', stream: { chunk_rows: 1 } })).rejects.toMatchObject({
      info: { kind: 'db' },
    });
  });
});
