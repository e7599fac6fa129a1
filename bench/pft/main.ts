/**
 * PFT-lite (issue 5 item 5): the same PFT-like workload (facilities x
 * patients x five paged domains from a loopback mock API, every page saved
 * to Postgres) run three ways on one fresh database: a plain Node script
 * (undici + pg), then the in-process engine with frames of 1 row and of 50,
 * each in a child process of its own (with its own mock API), so that a
 * variant's peak RSS is its own.
 * Writes bench/results/pft-lite.{json,md}; exits 1 when a variant did not
 * save exactly the expected rows.
 *
 *   npm run bench:pft -- [--facilities 2] [--patients 100] [--concurrency 10] [--rows-per-page 5] [--rate-limit <req/s>]
 *
 * DATABASE_URL names the server (BENCH_DATABASE is recreated on it); without
 * it, the embedded PostgreSQL under NOETL_HOME is used.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadConfig, type NoetlConfig } from '@noetl/config';
import { EventType } from '@noetl/event-kernel';
import type { RuntimeMetrics } from '@noetl/runtime';
import { Database } from '@noetl/storage';
import { postgresCredentialData } from '../../tools/fixtures/src/fixtures-database';
import { openBenchDatabase } from '../bench-database';
import { startBenchEngine, type BenchEngine } from '../bench-engine';
import { PAGES_PER_PATIENT, startMockApi, type MockApi } from './mock-api';
import { readPftPlaybook } from './pft-playbook';
import { spanBreakdown, spanTotals } from '../spans';
import { runPlain } from './plain-run';
import { ratiosOf, round, writeReport, type PftReport, type VariantResult } from './report';

const FRAME_SIZES = [1, 50] as const;
const CREDENTIAL = 'pft_bench';
const RSS_SAMPLE_MS = 100;
const EXECUTION_TIMEOUT_MS = 4 * 60 * 60_000;
const POLL_MS = 100;
const PLAYBOOK_FILE = join(process.cwd(), 'bench', 'pft', 'pft.yaml');
/** argv[2] of a child running one variant; argv[3] is its VariantTask as JSON. */
const CHILD_FLAG = '--variant-task';

interface Options {
  facilities: number;
  patients: number;
  concurrency: number;
  rowsPerPage: number;
  rateLimit: number | undefined;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      facilities: { type: 'string', default: '2' },
      patients: { type: 'string', default: '100' },
      concurrency: { type: 'string', default: '10' },
      'rows-per-page': { type: 'string', default: '5' },
      'rate-limit': { type: 'string' },
    },
  });
  const positive = (name: string, text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got ${JSON.stringify(text)}`);
    return value;
  };
  return {
    facilities: positive('facilities', values.facilities),
    patients: positive('patients', values.patients),
    concurrency: positive('concurrency', values.concurrency),
    rowsPerPage: positive('rows-per-page', values['rows-per-page']),
    rateLimit: values['rate-limit'] === undefined ? undefined : positive('rate-limit', values['rate-limit']),
  };
}

/** Runs `run`, sampling the process's RSS every RSS_SAMPLE_MS meanwhile. */
async function measured<T>(run: () => Promise<T>): Promise<{ value: T; wallMs: number; peakRssMb: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), RSS_SAMPLE_MS);
  const began = performance.now();
  try {
    const value = await run();
    return {
      value,
      wallMs: Math.round(performance.now() - began),
      peakRssMb: Math.round(Math.max(peak, process.memoryUsage().rss) / 2 ** 20),
    };
  } finally {
    clearInterval(sampler);
  }
}

const TERMINAL = [EventType.ExecutionCompleted, EventType.ExecutionFailed, EventType.ExecutionCancelled];

/**
 * Waits for the execution's terminal event by polling the ledger over the
 * harness's own connections, not the engine's: the run being measured may
 * hold every connection of the engine's pool. Undefined when it completed,
 * else why not.
 */
async function waitForEnd(harnessDb: Database, executionId: string): Promise<string | undefined> {
  const deadline = Date.now() + EXECUTION_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const [end] = await harnessDb.query<{ event_type: string; payload: { error?: { message?: string } } }>(
      'SELECT event_type, payload FROM noetl.event WHERE execution_id = $1 AND event_type = ANY($2) LIMIT 1',
      [executionId, TERMINAL],
    );
    if (end?.event_type === EventType.ExecutionCompleted) return undefined;
    if (end) return `execution ${executionId} ended ${end.event_type}: ${end.payload.error?.message ?? 'no error recorded'}`;
    await sleep(POLL_MS);
  }
  return `execution ${executionId} did not end within ${EXECUTION_TIMEOUT_MS / 60_000} minutes`;
}

interface Variant {
  name: string;
  maxRows: number | null;
  /** The engine's metrics and database, whose step spans and round trips are broken down per frame claim. */
  engine?: { metrics: RuntimeMetrics; database: Database };
  /** Does the work; the execution's id and, when it did not complete, why. */
  run(): Promise<{ executionId: string | null; failure?: string }>;
}

async function runVariant(
  variant: Variant,
  setupSql: string,
  harnessDb: Database,
  api: MockApi,
  expectedRows: number,
): Promise<VariantResult> {
  // An empty table for each variant, made by the playbook's own SQL, so the rows counted are this variant's.
  await harnessDb.query('DROP TABLE IF EXISTS public.pft_bench_record');
  await harnessDb.query(setupSql);
  api.resetCounts();
  const spansBefore = variant.engine ? await spanTotals(variant.engine.metrics) : undefined;
  const countsBefore = variant.engine ? { ...variant.engine.database.counts } : undefined;
  const { value, wallMs, peakRssMb } = await measured(() => variant.run());
  const counts = api.counts();
  const [saved] = await harnessDb.query<{ n: number }>('SELECT count(*)::int AS n FROM public.pft_bench_record');
  const rows = saved?.n ?? 0;
  const byType: Record<string, number> = {};
  if (value.executionId !== null) {
    const grouped = await harnessDb.query<{ event_type: string; n: number }>(
      'SELECT event_type, count(*)::int AS n FROM noetl.event WHERE execution_id = $1 GROUP BY event_type ORDER BY event_type',
      [value.executionId],
    );
    for (const { event_type, n } of grouped) byType[event_type] = n;
  }
  const frameClaims = byType[EventType.FrameDispatched] ?? 0;
  const spans =
    variant.engine && spansBefore ? spanBreakdown(spansBefore, await spanTotals(variant.engine.metrics), frameClaims) : undefined;
  const perFrame = (value: number): number => round(value / Math.max(1, frameClaims), 1);
  const roundTrips =
    variant.engine && countsBefore
      ? {
          transactions: perFrame(variant.engine.database.counts.transactions - countsBefore.transactions),
          statements: perFrame(variant.engine.database.counts.statements - countsBefore.statements),
        }
      : undefined;
  const eventsTotal = Object.values(byType).reduce((sum, n) => sum + n, 0);
  const failure = value.failure ?? (rows === expectedRows ? undefined : `saved ${rows} rows, expected ${expectedRows}`);
  return {
    variant: variant.name,
    max_rows: variant.maxRows,
    execution_id: value.executionId,
    wall_ms: wallMs,
    http_requests: counts.requests,
    http_rate_limited: counts.rateLimited,
    rows_saved: rows,
    events_total: eventsTotal,
    events_by_type: byType,
    events_per_request: value.executionId === null ? null : round(eventsTotal / Math.max(1, counts.requests)),
    frame_claims: value.executionId === null ? null : frameClaims,
    ...(spans ? { spans_per_frame: spans } : {}),
    ...(roundTrips ? { round_trips_per_frame: roundTrips } : {}),
    peak_rss_mb: peakRssMb,
    ...(failure ? { failure } : {}),
  };
}

/** The bench engine with the credential the playbook's postgres steps use. */
async function bootEngine(baseConfig: NoetlConfig, url: string, concurrency: number): Promise<BenchEngine> {
  const booted = await startBenchEngine(baseConfig, url, concurrency);
  try {
    await booted.engine.own.credentials.put({ name: CREDENTIAL, type: 'postgres', data: postgresCredentialData(url) });
  } catch (error) {
    await booted.close();
    throw error;
  }
  return booted;
}

/** One variant, run by a child process of its own: the engine's variants do not inherit the heap an earlier variant grew. */
interface VariantTask {
  options: Options;
  databaseUrl: string;
  /** Rows per frame; null for the plain script. */
  maxRows: number | null;
}

/**
 * Runs `task` in this process (a child the parent forked): the mock API, the
 * harness's connections and, for an engine variant, the engine, so the peak
 * RSS measured is this variant's alone. Sends its VariantResult to the parent.
 */
async function runChild(task: VariantTask): Promise<void> {
  const { options, databaseUrl, maxRows } = task;
  const baseConfig = loadConfig({ ...process.env, LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn' });
  const playbook = readPftPlaybook(PLAYBOOK_FILE);
  const expectedRows = expectedOf(options).rows;
  const api = await startMockApi({ rowsPerPage: options.rowsPerPage, ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}) });
  const harnessDb = await Database.connect(databaseUrl, { poolSize: 2, applicationName: 'bench-pft' });
  let engine: BenchEngine | undefined;
  try {
    let variant: Variant;
    if (maxRows === null) {
      variant = {
        name: 'plain node',
        maxRows: null,
        run: async () => {
          const { setupSql, pageInsertSql } = playbook;
          await runPlain({ ...options, apiUrl: api.url, databaseUrl, setupSql, pageInsertSql });
          return { executionId: null };
        },
      };
    } else {
      engine = await bootEngine(baseConfig, databaseUrl, options.concurrency);
      const { engine: running } = engine;
      const path = `bench/pft-lite-rows-${maxRows}`;
      await running.own.catalog.register(playbook.variant(path, maxRows));
      const payload = { api_url: api.url, facilities: options.facilities, patients: options.patients, concurrency: options.concurrency };
      variant = {
        name: `engine max_rows ${maxRows}`,
        maxRows,
        engine: { metrics: running.metrics, database: engine.database },
        run: async () => {
          const { execution_id } = await running.own.executions.start({ path, payload });
          const failure = await waitForEnd(harnessDb, execution_id);
          if (failure !== undefined)
            await running.own.executions
              .cancel(execution_id, { reason: 'bench:pft stopped waiting', by: 'bench:pft' })
              .catch(() => undefined);
          return { executionId: execution_id, ...(failure !== undefined ? { failure } : {}) };
        },
      };
    }
    const result = await runVariant(variant, playbook.setupSql, harnessDb, api, expectedRows);
    await new Promise<void>((resolve, reject) => process.send!(result, (error: Error | null) => (error ? reject(error) : resolve())));
  } finally {
    await engine?.close();
    await harnessDb.close();
    await api.close();
  }
}

/** Forks this script to run `task`; its VariantResult. */
function inChild(task: VariantTask): Promise<VariantResult> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, [CHILD_FLAG, JSON.stringify(task)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: VariantResult | undefined;
    child.on('message', (message) => (result = message as VariantResult));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0 && result) resolve(result);
      else
        reject(
          new Error(
            `the variant with max_rows ${task.maxRows ?? 'none (plain node)'} exited ${code ?? signal}${result ? '' : ' without a result'}`,
          ),
        );
    });
  });
}

function expectedOf(options: Options): PftReport['expected'] {
  const requests = options.facilities * options.patients * PAGES_PER_PATIENT;
  return { http_requests: requests, rows: requests * options.rowsPerPage };
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const baseConfig = loadConfig({ ...process.env, LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn' });
  const benchDatabase = await openBenchDatabase(baseConfig);
  try {
    const results: VariantResult[] = [];
    // One database for every variant: each recreates the bench table, the ledger only grows by the engines' executions.
    for (const maxRows of [null, ...FRAME_SIZES]) {
      const result = await inChild({ options, databaseUrl: benchDatabase.url, maxRows });
      process.stderr.write(
        `${result.variant}: ${round(result.wall_ms / 1000, 1)} s, ${result.http_requests} requests, ${result.rows_saved} rows${result.failure ? `, FAILED: ${result.failure}` : ''}\n`,
      );
      results.push(result);
    }
    const report: PftReport = {
      benchmark: 'pft-lite',
      date: new Date().toISOString(),
      database: baseConfig.database.url ? 'DATABASE_URL' : 'embedded',
      node: process.version,
      scale: {
        facilities: options.facilities,
        patients: options.patients,
        concurrency: options.concurrency,
        rows_per_page: options.rowsPerPage,
        rate_limit: options.rateLimit ?? null,
      },
      expected: expectedOf(options),
      variants: results,
      ratios: ratiosOf(results),
    };
    process.stdout.write(`${await writeReport(join(process.cwd(), 'bench', 'results'), 'pft-lite', report)}\n`);
    return results.some((result) => result.failure) ? 1 : 0;
  } finally {
    await benchDatabase.close();
  }
}

const fail = (error: unknown): void => {
  process.stderr.write(`bench:pft: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
};

if (process.argv[2] === CHILD_FLAG) {
  runChild(JSON.parse(process.argv[3]!) as VariantTask).then(() => process.exit(0), fail);
} else {
  main().then((code) => process.exit(code), fail);
}
