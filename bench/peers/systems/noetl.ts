/**
 * This runtime's side of a bench:peers task (protocol.ts): scheduler and
 * worker in this child process on the system's own database.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@noetl/config';
import type { Engine } from '@noetl/runtime';
import { migrate } from '@noetl/storage';
import { startAndAwait } from '../../await-executions';
import { startBenchEngine } from '../../bench-engine';
import { chainPlaybook } from '../../chain-playbook';
import type { RunReport, Task, Workload } from '../protocol';

/** Rows per frame of the no-op loop: a frame is what one claim commits. */
const FRAME_ROWS = 500;
const MAX_IN_FLIGHT = 10;
const TIMEOUT_MS = 30 * 60_000;

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
  const startOne = async (payload?: Record<string, number>): Promise<string[]> => [(await engine.executions.start({ path, ...(payload ? { payload } : {}) })).execution_id];
  switch (workload.kind) {
    case 'chain':
      await startAndAwait(engine, tenantId, TIMEOUT_MS, () => startOne());
      return 'one execution, each step a command';
    case 'executions':
      await startAndAwait(engine, tenantId, TIMEOUT_MS, async () =>
        (await Promise.all(Array.from({ length: workload.count }, () => engine.executions.start({ path })))).map((execution) => execution.execution_id),
      );
      return 'executions started at once, each step a command';
    case 'items':
      await startAndAwait(engine, tenantId, TIMEOUT_MS, () => startOne({ count: workload.count }));
      return `a parallel loop (max_in_flight ${MAX_IN_FLIGHT}) of ${FRAME_ROWS}-row frames`;
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
  const booted = await startBenchEngine(config, task.databaseUrl, config.worker.concurrency);
  let report: Omit<RunReport, 'maxRssKb'> | undefined;
  try {
    if (task.phase === 'prepare') {
      await booted.engine.catalog.register(playbookOf(task.workload));
    } else if (task.phase === 'run') {
      const began = performance.now();
      const shape = await run(booted.engine, config.tenancy.tenantId, task.workload);
      report = { version: runtimeVersion(), wallMs: performance.now() - began, shape };
    }
  } finally {
    await booted.close();
  }
  if (report) {
    const answer: RunReport = { ...report, maxRssKb: process.resourceUsage().maxRSS };
    await new Promise<void>((resolve, reject) => process.send!(answer, undefined, {}, (error) => (error ? reject(error) : resolve())));
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:peers noetl: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
