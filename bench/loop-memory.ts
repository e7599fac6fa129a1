/**
 * `npm run bench:loop-memory -- [--sizes 10000,1000000] [--rows 500]`
 * (issue 23 item 6): one no-op loop of each size over `range(0, n)`, in
 * 500-row frames, max_in_flight 10, scheduler and worker in one process
 * (`noetl server`'s shape), each size in a child process of its own on a
 * fresh database, so each peak RSS is that size's alone. Prints and writes
 * bench/results/loop-memory.{md,json}: items/s, peak RSS from the start to
 * the execution's end, and each size's peak over the smallest's; beside it
 * the peak heap still in use right after a full collection (what the run
 * retains, without the headroom V8 grows its heap by under a high
 * allocation rate). The run then reads the result (every item's) to check
 * it, outside the window.
 *
 * DATABASE_URL names the server (the database noetl_bench_loop_memory is
 * recreated on it); without it, the embedded PostgreSQL under NOETL_HOME.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig } from '@noetl/config';
import type { ExecutionService } from '@noetl/runtime';
import { openBenchDatabase } from './bench-database';
import { inChild, runBench, writeResults } from './child-runs';
import { startBenchEngine } from './bench-engine';

const CHILD_FLAG = '--loop-size';
const DATABASE = 'noetl_bench_loop_memory';
const MAX_IN_FLIGHT = 10;
const WORKER_SLOTS = 10;
const TIMEOUT_MS = 60 * 60_000;
const RSS_SAMPLE_MS = 100;
const POLL_MS = 50;

interface SizeResult {
  items: number;
  seconds: number;
  items_per_s: number;
  peak_rss_mb: number;
  /** The most heap that was still in use right after a full collection: what the run retains, without V8's headroom. */
  peak_live_heap_mb: number;
}

const playbook = (rows: number): string => `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: bench_loop_memory, path: bench/loop-memory}
workload: {count: 0}
workflow:
  - step: each
    loop: {in: "{{ range(0, count) }}", iterator: item, spec: {mode: parallel, max_in_flight: ${MAX_IN_FLIGHT}, frame: {max_rows: ${rows}}}}
    tool: {kind: noop}
`;

/** One size in this (child) process: its loop, timed, and the process's peak RSS. */
async function runSize(items: number, rows: number): Promise<SizeResult> {
  const env = {
    ...process.env,
    LOG_LEVEL: 'warn',
    NOETL_MAX_RANGE_ITEMS: String(items),
    NOETL_MAX_LOOP_ITEMS: String(Math.max(items, 1_000_000)),
  };
  const benchDb = await openBenchDatabase(loadConfig(env), DATABASE);
  const bench = await startBenchEngine(loadConfig({ ...env, DATABASE_URL: benchDb.url }), benchDb.url, WORKER_SLOTS);
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), RSS_SAMPLE_MS);
  let live = 0;
  const collections = new PerformanceObserver((list) => {
    if (list.getEntries().some((entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) {
      live = Math.max(live, process.memoryUsage().heapUsed);
    }
  });
  collections.observe({ entryTypes: ['gc'] });
  try {
    await bench.engine.own.catalog.register(playbook(rows));
    const began = performance.now();
    const { execution_id } = await bench.engine.own.executions.start({ path: 'bench/loop-memory', payload: { count: items } });
    await untilEnded(bench.engine.own.executions, execution_id);
    const seconds = (performance.now() - began) / 1000;
    clearInterval(sampler);
    collections.disconnect();
    const peakRss = Math.max(peak, process.resourceUsage().maxRSS * 1024);
    // A short run may end before any full collection: one now, at the end, counts what it retains.
    (globalThis as { gc?: () => void }).gc?.();
    live = Math.max(live, process.memoryUsage().heapUsed);
    // Outside the measured window: the result as a reader gets it (GET /api/executions/{id}), every item's.
    const detail = await bench.engine.own.executions.get(execution_id);
    if (detail.status !== 'COMPLETED') throw new Error(`the ${items}-item loop ended ${detail.status}: ${JSON.stringify(detail.error)}`);
    const results = (detail.result as { results?: unknown[] } | null)?.results;
    if (results?.length !== items) throw new Error(`the ${items}-item loop's result holds ${results?.length} results`);
    return {
      items,
      seconds: Math.round(seconds * 10) / 10,
      items_per_s: Math.round(items / seconds),
      peak_rss_mb: Math.round(peakRss / 2 ** 20),
      peak_live_heap_mb: Math.round(live / 2 ** 20),
    };
  } finally {
    clearInterval(sampler);
    collections.disconnect();
    await bench.close();
    await benchDb.close();
  }
}

/**
 * Waits for the execution's end by its status alone (the execution list's
 * row), not its detail: a detail carries the result, and reading a million
 * results is the reader's cost, not the scheduler's or the worker's.
 */
async function untilEnded(executions: ExecutionService, executionId: string): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const {
      executions: [row],
    } = await executions.list({ limit: 1 });
    if (row?.execution_id === executionId && row.status !== 'RUNNING') return;
    if (Date.now() > deadline) throw new Error(`execution ${executionId} did not end within ${TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { sizes: { type: 'string', default: '10000,1000000' }, rows: { type: 'string', default: '500' } },
  });
  const sizes = values.sizes.split(',').map(Number);
  const rows = Number(values.rows);
  const results: SizeResult[] = [];
  for (const items of sizes) {
    results.push(await inChild<SizeResult>(RUNS, [String(items), String(rows)], `the ${items}-item loop`));
    process.stdout.write(`${items} items: ${JSON.stringify(results.at(-1))}\n`);
  }
  const base = results[0]!.peak_rss_mb;
  const liveBase = Math.max(1, results[0]!.peak_live_heap_mb);
  const table = [
    `Loop memory: no-op loops over range(0, n), ${rows}-row frames, max_in_flight ${MAX_IN_FLIGHT}, scheduler and worker in one process (node ${process.version}, ${new Date().toISOString()})`,
    '',
    '| items | s | items/s | peak RSS MB | peak / smallest | peak live heap MB (after a full GC) | live / smallest |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...results.map(
      (r) =>
        `| ${r.items.toLocaleString('en-US')} | ${r.seconds} | ${r.items_per_s.toLocaleString('en-US')} | ${r.peak_rss_mb} | ${(r.peak_rss_mb / base).toFixed(2)} | ${r.peak_live_heap_mb} | ${(r.peak_live_heap_mb / liveBase).toFixed(2)} |`,
    ),
  ].join('\n');
  await writeResults('loop-memory', { benchmark: 'loop-memory', date: new Date().toISOString(), frame_rows: rows, results }, table);
}

const RUNS = { file: __filename, childFlag: CHILD_FLAG, execArgv: ['--expose-gc'] };

runBench<SizeResult>({ ...RUNS, name: 'loop-memory', child: ([items, rows]) => runSize(Number(items), Number(rows)), main });
