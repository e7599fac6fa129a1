/**
 * This runtime's side of a bench:peers task (protocol.ts): scheduler and
 * worker in this child process on the system's own database; in the `rest`
 * variant, a `noetl server` process whose executions this child starts with
 * POST /api/execute, as users start work.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@noetl/config';
import type { Engine } from '@noetl/runtime';
import { migrate } from '@noetl/storage';
import { startAndAwait } from '../../await-executions';
import { startBenchEngine } from '../../bench-engine';
import { chainPlaybook } from '../../chain-playbook';
import { Client } from 'pg';
import type { RunReport, Task, Workload } from '../protocol';
import { startNoetlServer, type NoetlServer } from './noetl-server';

/** Rows per frame of the no-op loop: a frame is what one claim commits. */
const FRAME_ROWS = 500;
const MAX_IN_FLIGHT = 10;
const TIMEOUT_MS = 30 * 60_000;
/** Requests a REST client keeps in flight (a connection pool's worth). */
const REST_CONCURRENCY = 64;
const REST_POLL_MS = 100;

const pathOf = (workload: Workload): string => (workload.kind === 'items' ? 'bench/peers/items' : `bench/peers/chain-${workload.steps}`);

function playbookOf(workload: Workload): string {
  if (workload.kind !== 'items') return chainPlaybook(workload.steps, pathOf(workload));
  return [
    'apiVersion: noetl.io/v2',
    'kind: Playbook',
    `metadata: {name: bench_peers_items, path: ${pathOf(workload)}}`,
    'workload: {count: 0}',
    'workflow:',
    '  - step: start',
    '    loop:',
    '      in: "{{ range(0, count) }}"',
    '      iterator: item',
    `      spec: {mode: parallel, max_in_flight: ${MAX_IN_FLIGHT}, frame: {max_rows: ${FRAME_ROWS}}}`,
    '    tool: {kind: noop}',
    '',
  ].join('\n');
}

async function run(engine: Engine, tenantId: string, workload: Workload): Promise<string> {
  const path = pathOf(workload);
  const startOne = async (payload?: Record<string, number>): Promise<string[]> => [
    (await engine.own.executions.start({ path, ...(payload ? { payload } : {}) })).execution_id,
  ];
  switch (workload.kind) {
    case 'chain':
      await startAndAwait(engine, tenantId, TIMEOUT_MS, () => startOne());
      return 'one execution, each step a command';
    case 'executions':
      await startAndAwait(engine, tenantId, TIMEOUT_MS, async () =>
        (await Promise.all(Array.from({ length: workload.count }, () => engine.own.executions.start({ path })))).map(
          (execution) => execution.execution_id,
        ),
      );
      return 'executions started at once, each step a command';
    case 'items':
      await startAndAwait(engine, tenantId, TIMEOUT_MS, () => startOne({ count: workload.count }));
      return `a parallel loop (max_in_flight ${MAX_IN_FLIGHT}) of ${FRAME_ROWS}-row frames`;
  }
}

/**
 * The executions workload over REST: `count` POST /api/execute against the
 * server, REST_CONCURRENCY at a time, then until every execution has ended
 * (read from its database, not through the API it measures).
 */
async function runOverRest(server: NoetlServer, databaseUrl: string, workload: Workload): Promise<string> {
  if (workload.kind !== 'executions') throw new Error(`the rest variant runs the executions workload only, not ${workload.kind}`);
  const body = JSON.stringify({ path: pathOf(workload) });
  let next = 0;
  const client = async (): Promise<void> => {
    while (next < workload.count) {
      next++;
      const response = await fetch(`${server.url}/api/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      if (response.status !== 201) throw new Error(`POST /api/execute answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: REST_CONCURRENCY }, client));
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const deadline = Date.now() + TIMEOUT_MS;
    // Counted on idx_execution_running (the harness's own reads stay few), whether they completed once none runs.
    for (;;) {
      const [{ running }] = (
        await db.query<{ running: number }>(`SELECT count(*)::int AS running FROM noetl.execution WHERE status = 'RUNNING'`)
      ).rows as [{ running: number }];
      if (running === 0) break;
      if (Date.now() > deadline) throw new Error(`${running} executions still running after ${TIMEOUT_MS / 60_000} minutes`);
      await new Promise((resolve) => setTimeout(resolve, REST_POLL_MS));
    }
    const [{ failed }] = (
      await db.query<{ failed: number }>(`SELECT count(*)::int AS failed FROM noetl.execution WHERE status <> 'COMPLETED'`)
    ).rows as [{ failed: number }];
    if (failed > 0) throw new Error(`${failed} executions did not complete`);
  } finally {
    await db.end();
  }
  return `a noetl server process; executions started by POST /api/execute, ${REST_CONCURRENCY} requests in flight`;
}

/** The rest variant's task: the server is started and stopped outside the timed run; the peak RSS is the server's. */
async function restTask(task: Task): Promise<Omit<RunReport, 'maxRssKb'> & { maxRssKb?: number }> {
  const server = await startNoetlServer(task.databaseUrl, process.env);
  try {
    if (task.phase !== 'run') return { version: runtimeVersion(), wallMs: 0, shape: '' };
    const began = performance.now();
    const shape = await runOverRest(server, task.databaseUrl, task.workload);
    return { version: runtimeVersion(), wallMs: performance.now() - began, shape, maxRssKb: server.peakRssKb() };
  } finally {
    await server.stop();
  }
}

function runtimeVersion(): string {
  const manifest = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version: string };
  return `noetl-runtime ${manifest.version}`;
}

async function main(): Promise<void> {
  const task = JSON.parse(process.argv[2] ?? '') as Task;
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn' });
  if (task.phase === 'prepare') await migrate(task.databaseUrl, 'up');
  if (task.variant === 'rest' && task.phase !== 'prepare') {
    const rest = await restTask(task);
    if (task.phase === 'run') await answer({ ...rest, maxRssKb: rest.maxRssKb ?? 0 });
    return;
  }
  const booted = await startBenchEngine(config, task.databaseUrl, config.worker.concurrency);
  let report: Omit<RunReport, 'maxRssKb'> | undefined;
  try {
    if (task.phase === 'prepare') {
      await booted.engine.own.catalog.register(playbookOf(task.workload));
    } else if (task.phase === 'run') {
      const began = performance.now();
      const shape = await run(booted.engine, config.tenancy.tenantId, task.workload);
      report = { version: runtimeVersion(), wallMs: performance.now() - began, shape };
    }
  } finally {
    await booted.close();
  }
  if (report) await answer({ ...report, maxRssKb: process.resourceUsage().maxRSS });
}

function answer(report: RunReport): Promise<void> {
  return new Promise<void>((resolve, reject) => process.send!(report, undefined, {}, (error) => (error ? reject(error) : resolve())));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:peers noetl: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
