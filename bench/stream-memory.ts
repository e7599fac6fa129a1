/**
 * `npm run bench:stream-memory -- [--sizes 100000,1000000] [--chunk 10000]`
 * (issue 27 item 5): one postgres step streaming `generate_series(1, n)`
 * (a number and its md5 per row) in chunks of `--chunk` rows, each chunk
 * loaded by an `on: call.partial` javascript step, with backpressure at
 * NOETL_STREAM_MAX_PENDING_CHUNKS (default 8); scheduler and worker in one
 * process, each size in a child process of its own on a fresh database, so
 * each peak RSS is that size's alone. Flat peaks across sizes say the stream
 * holds a bounded number of chunks (run it under `node --max-old-space-size=128`
 * too: V8 grows its heap lazily, and a bounded stream completes in a small one).
 * Prints and writes
 * bench/results/stream-memory.{md,json}.
 *
 * DATABASE_URL names the server (the database noetl_bench_stream_memory is
 * recreated on it); without it, the embedded PostgreSQL under NOETL_HOME.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '@noetl/config';
import { openBenchDatabase } from './bench-database';
import { inChild, runBench, writeResults } from './child-runs';
import { startBenchEngine } from './bench-engine';

const CHILD_FLAG = '--stream-size';
const DATABASE = 'noetl_bench_stream_memory';
const WORKER_SLOTS = 10;
const TIMEOUT_MS = 60 * 60_000;
const RSS_SAMPLE_MS = 100;

interface SizeResult {
  rows: number;
  chunks: number;
  seconds: number;
  rows_per_s: number;
  peak_rss_mb: number;
  max_pending_chunks: number;
}

const playbook = (dsn: string, chunkRows: number): string => `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: bench_stream_memory, path: bench/stream-memory}
workload: {count: 0}
workflow:
  - step: read
    tool:
      kind: postgres
      connection: "${dsn}"
      query: "SELECT n, md5(n::text) AS pad FROM generate_series(1, $1::int) AS n ORDER BY n"
      params: ["{{ workload.count }}"]
      stream: {chunk_rows: ${chunkRows}}
    next:
      - {step: load_chunk, on: call.partial}
      - step: done
  - step: load_chunk
    tool: {kind: javascript, code: "return {rows: input.rows.length}", input: {rows: "{{ chunk.rows }}"}}
  - step: done
    tool: {kind: noop}
`;

/** One size in this (child) process: its stream, timed, and the process's peak RSS. */
async function runSize(rows: number, chunkRows: number): Promise<SizeResult> {
  const env = { ...process.env, LOG_LEVEL: 'warn' };
  const benchDb = await openBenchDatabase(loadConfig(env), DATABASE);
  const config = loadConfig({ ...env, DATABASE_URL: benchDb.url });
  const bench = await startBenchEngine(config, benchDb.url, WORKER_SLOTS);
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), RSS_SAMPLE_MS);
  try {
    await bench.engine.own.catalog.register(playbook(benchDb.url, chunkRows));
    const began = performance.now();
    const { execution_id } = await bench.engine.own.executions.start({ path: 'bench/stream-memory', payload: { count: rows } });
    const detail = await bench.engine.waitForTerminal(execution_id, { timeoutMs: TIMEOUT_MS });
    if (detail.status !== 'COMPLETED') throw new Error(`the ${rows}-row stream ended ${detail.status}: ${JSON.stringify(detail.error)}`);
    const seconds = (performance.now() - began) / 1000;
    const pending = await bench.engine.metrics.registry.getSingleMetricAsString('noetl_stream_pending_chunks_max');
    return {
      rows,
      chunks: Math.ceil(rows / chunkRows),
      seconds: Math.round(seconds * 10) / 10,
      rows_per_s: Math.round(rows / seconds),
      peak_rss_mb: Math.round(Math.max(peak, process.resourceUsage().maxRSS * 1024) / 2 ** 20),
      max_pending_chunks: Number(/noetl_stream_pending_chunks_max (\d+)/.exec(pending)?.[1] ?? 0),
    };
  } finally {
    clearInterval(sampler);
    await bench.close();
    await benchDb.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { sizes: { type: 'string', default: '100000,1000000' }, chunk: { type: 'string', default: '10000' } },
  });
  const sizes = values.sizes.split(',').map(Number);
  const chunkRows = Number(values.chunk);
  const maxPending = loadConfig(process.env).worker.streamMaxPendingChunks;
  const results: SizeResult[] = [];
  for (const rows of sizes) {
    results.push(await inChild<SizeResult>(RUNS, [String(rows), String(chunkRows)], `the ${rows}-row stream`));
    process.stdout.write(`${rows} rows: ${JSON.stringify(results.at(-1))}\n`);
  }
  const base = results[0]!.peak_rss_mb;
  const table = [
    `Stream memory: a postgres step streaming generate_series(1, n) with md5 padding, ${chunkRows}-row chunks, each loaded by an on: call.partial javascript step, NOETL_STREAM_MAX_PENDING_CHUNKS ${maxPending}, scheduler and worker in one process (node ${process.version}${process.execArgv.length > 0 ? ` ${process.execArgv.join(' ')}` : ''}, ${new Date().toISOString()})`,
    '',
    '| rows | chunks | s | rows/s | most chunks in flight | peak RSS MB | peak / smallest |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...results.map(
      (r) =>
        `| ${r.rows.toLocaleString('en-US')} | ${r.chunks} | ${r.seconds} | ${r.rows_per_s.toLocaleString('en-US')} | ${r.max_pending_chunks} | ${r.peak_rss_mb} | ${(r.peak_rss_mb / base).toFixed(2)} |`,
    ),
  ].join('\n');
  await writeResults(
    'stream-memory',
    { benchmark: 'stream-memory', date: new Date().toISOString(), chunk_rows: chunkRows, max_pending_chunks: maxPending, results },
    table,
  );
}

const RUNS = { file: __filename, childFlag: CHILD_FLAG };

runBench<SizeResult>({ ...RUNS, name: 'stream-memory', child: ([rows, chunkRows]) => runSize(Number(rows), Number(chunkRows)), main });
