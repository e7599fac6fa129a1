/**
 * `npm run bench:ui` (issue 24): the web UI's quality bars measured in
 * Chromium against a `noetl server` (api role) on a database of 10,000
 * executions and one of about 6,000 events: the list's first page (< 1 s),
 * opening the big execution (< 1.5 s), a scrub of the time-travel slider to
 * any position (< 300 ms). Writes bench/results/ui.{json,md}; exits 1 when a
 * bar is missed.
 *
 *   npm run bench:ui -- [--executions 10000] [--loop-items 3000] [--reuse]
 *
 * The engine (scheduler, worker, projector: the projector keeps the replay
 * snapshots) runs every execution to its end first. `--reuse` keeps the
 * database of the previous run instead (seeding takes minutes).
 * DATABASE_URL names the server, else the embedded PostgreSQL; CHROMIUM_PATH
 * the browser (/usr/bin/chromium).
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, readKeyFile, Secret } from '@noetl/config';
import { Engine } from '@noetl/runtime';
import { Database, freePort, migrate } from '@noetl/storage';
import { withDatabase } from '../../tools/fixtures/src/fixtures-database';
import { openBenchServer, recreateDatabase } from '../bench-database';
import { median } from '../stats';
import { measureUi, type UiTimings } from './browser-timings';
import { seed } from './seed';

const DATABASE = 'noetl_bench_ui';
const BARS = { listFirstPageMs: 1000, openBigExecutionMs: 1500, scrubMs: 300 };
const RUNS = 5;
const SCRUBS = 30;

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      executions: { type: 'string', default: '10000' },
      'loop-items': { type: 'string', default: '3000' },
      reuse: { type: 'boolean', default: false },
    },
  });
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn' });
  const server = await openBenchServer(config);
  try {
    const url = values.reuse ? withDatabase(server.url, DATABASE) : await recreateDatabase(server.url, DATABASE);
    if (!values.reuse) await seedDatabase(url, config, Number(values.executions), Number(values['loop-items']));
    // The first server on a database makes its admin key and writes it to NOETL_HOME: a reused database reuses its home.
    const home = join(tmpdir(), `noetl-bench-ui-home-${DATABASE}`);
    if (!values.reuse) rmSync(home, { recursive: true, force: true });
    const timings = await withServer(url, home, (serverUrl, apiKey) => measure(serverUrl, apiKey));
    await report(timings);
  } finally {
    await server.close();
  }
}

async function seedDatabase(url: string, base: ReturnType<typeof loadConfig>, executions: number, loopItems: number): Promise<void> {
  await migrate(url, 'up');
  const config = {
    ...base,
    database: { ...base.database, url: new Secret(url) },
    encryptionKey: new Secret(randomBytes(32).toString('hex')),
  };
  const database = await Database.connect(url);
  const engine = await Engine.start({ config, database, roles: ['scheduler', 'worker', 'projector'] });
  try {
    const began = performance.now();
    await seed(engine, config.tenancy.tenantId, executions, loopItems);
    // The snapshots replay seeds from are the projector's: wait until it has folded every event.
    while ((await engine.projectionLag()) !== 0) await new Promise((resolve) => setTimeout(resolve, 50));
    process.stdout.write(
      `seeded ${executions} executions and a loop of ${loopItems} items in ${Math.round((performance.now() - began) / 1000)} s\n`,
    );
  } finally {
    await engine.stop();
    await database.close();
  }
}

/** `noetl server` with the api role alone on the database, as a user runs it; its first start makes the admin key the browser signs in with. */
async function withServer<T>(databaseUrl: string, home: string, work: (serverUrl: string, apiKey: string) => Promise<T>): Promise<T> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'apps', 'cli', 'src', 'main.js'), 'server'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, NOETL_HOME: home, PORT: String(port), NOETL_ROLES: 'api', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const serverUrl = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + 60_000;
    while (
      !(await fetch(`${serverUrl}/health/ready`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('noetl server did not become ready');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const apiKey = readKeyFile(home, 'admin');
    if (!apiKey) throw new Error(`no admin key in ${home}: run without --reuse`);
    return await work(serverUrl, apiKey);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function measure(serverUrl: string, apiKey: string): Promise<UiTimings & { executions: number }> {
  const get = async <T>(path: string): Promise<T> => {
    const answer = await fetch(`${serverUrl}${path}`, { headers: { Authorization: `Bearer ${apiKey}` } });
    if (!answer.ok) throw new Error(`GET ${path}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as T;
  };
  const counts = await get<Record<string, number>>('/api/executions/counts');
  const big = await get<{ executions: { execution_id: string }[] }>('/api/executions?path=bench/ui/loop&limit=1');
  const bigExecutionId = big.executions[0]?.execution_id;
  if (!bigExecutionId) throw new Error('the database holds no bench/ui/loop execution: run without --reuse');
  const timings = await measureUi({
    serverUrl,
    apiKey,
    bigExecutionId,
    chromiumPath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    runs: RUNS,
    scrubs: SCRUBS,
  });
  return { ...timings, executions: Object.values(counts).reduce((sum, n) => sum + n, 0) };
}

async function report(timings: UiTimings & { executions: number }): Promise<void> {
  const scrubs = timings.scrub.map((s) => s.ms);
  const figures = {
    executions: timings.executions,
    big_execution_events: timings.events,
    list_first_page_ms: { median: median(timings.listFirstPage), max: Math.max(...timings.listFirstPage), bar: BARS.listFirstPageMs },
    open_big_execution_ms: {
      median: median(timings.openBigExecution),
      max: Math.max(...timings.openBigExecution),
      bar: BARS.openBigExecutionMs,
    },
    scrub_ms: { positions: scrubs.length, median: median(scrubs), max: Math.max(...scrubs), bar: BARS.scrubMs },
  };
  const passed =
    figures.list_first_page_ms.max < BARS.listFirstPageMs &&
    figures.open_big_execution_ms.max < BARS.openBigExecutionMs &&
    figures.scrub_ms.max < BARS.scrubMs;
  const lines = [
    `# bench:ui, ${new Date().toISOString()}`,
    '',
    `Chromium at 1280x800 against \`noetl server\` (api role), ${figures.executions} executions, the big one of ${figures.big_execution_events} events. Max of ${RUNS} loads, ${scrubs.length} scrubs.`,
    '',
    '| measure | median ms | max ms | bar ms |',
    '| --- | --- | --- | --- |',
    `| executions list, first page | ${figures.list_first_page_ms.median} | ${figures.list_first_page_ms.max} | < ${BARS.listFirstPageMs} |`,
    `| open the ${figures.big_execution_events}-event execution | ${figures.open_big_execution_ms.median} | ${figures.open_big_execution_ms.max} | < ${BARS.openBigExecutionMs} |`,
    `| scrub to a position | ${figures.scrub_ms.median} | ${figures.scrub_ms.max} | < ${BARS.scrubMs} |`,
    '',
    passed ? 'Every bar is met.' : 'A bar is MISSED.',
    '',
  ];
  const dir = join(process.cwd(), 'bench', 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'ui.json'),
    `${JSON.stringify({ benchmark: 'ui', date: new Date().toISOString(), ...figures, scrubs: timings.scrub, passed }, null, 2)}\n`,
  );
  await writeFile(join(dir, 'ui.md'), lines.join('\n'));
  process.stdout.write(lines.join('\n'));
  if (!passed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:ui: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
