/**
 * Per-step overhead of the durable core (issue 4 baseline): a chain of 100
 * `noop` steps, run in-process (scheduler + worker) on a real PostgreSQL.
 * A step transition is the time from one step's `step.exit` to the next's;
 * it holds everything the runtime does per step: plan, command, claim,
 * run, report, fold, route. Writes bench/results/step-overhead.{json,md}.
 *
 * DATABASE_URL names the server (the bench database, noetl_bench_steps, is
 * created afresh on it at every run); without it, the embedded PostgreSQL
 * under NOETL_HOME is used.
 */
import { loadConfig } from '@noetl/config';
import { EventType } from '@noetl/event-kernel';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openBenchDatabase } from './bench-database';
import { startBenchEngine } from './bench-engine';
import { chainPlaybook } from './chain-playbook';
import { spanBreakdown, spanTable, spanTotals } from './spans';
import { median, percentile } from './stats';

const STEPS = 100;
const RUNS = 5;

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn' });
  const benchDatabase = await openBenchDatabase(config, 'noetl_bench_steps');
  const booted = await startBenchEngine(config, benchDatabase.url, config.worker.concurrency).catch(async (error: unknown) => {
    await benchDatabase.close();
    throw error;
  });
  const { engine, database } = booted;
  try {
    await engine.catalog.register(chainPlaybook(STEPS, `bench/chain-${STEPS}`));
    const transitions: number[] = [];
    const walls: number[] = [];
    let events = 0;
    const spansBefore = await spanTotals(engine.metrics);
    const countsBefore = { ...database.counts };
    const cpuBefore = process.cpuUsage();
    for (let run = 0; run < RUNS; run++) {
      const began = performance.now();
      const { execution_id } = await engine.executions.start({ path: `bench/chain-${STEPS}` });
      const detail = await engine.waitForTerminal(execution_id, { timeoutMs: 600_000 });
      walls.push(performance.now() - began);
      if (detail.status !== 'COMPLETED') throw new Error(`run ${run} ended ${detail.status}: ${detail.error?.message ?? ''}`);
      const exits = (await engine.executions.events(execution_id, { type: [EventType.StepExit], limit: 1000 })).events;
      for (let i = 1; i < exits.length; i++) transitions.push(Date.parse(exits[i]!.created_at) - Date.parse(exits[i - 1]!.created_at));
      events += (await engine.executions.events(execution_id, { limit: 1000 })).events.length;
    }
    // Spans overlap: `append` runs inside `plan`, `claim` and `report`; `plan` counts every scheduler pass.
    const spans = spanBreakdown(spansBefore, await spanTotals(engine.metrics), RUNS * STEPS);
    // Round trips and CPU per step: what contention on a shared machine does not change, unlike the wall.
    const cpu = process.cpuUsage(cpuBefore);
    const perStep = (value: number): number => Math.round((value / (RUNS * STEPS)) * 10) / 10;
    const cost = {
      engine_cpu_ms: perStep((cpu.user + cpu.system) / 1000),
      transactions: perStep(database.counts.transactions - countsBefore.transactions),
      statements: perStep(database.counts.statements - countsBefore.statements),
    };
    const result = {
      benchmark: 'step-overhead',
      date: new Date().toISOString(),
      database: config.database.url ? 'DATABASE_URL' : 'embedded',
      steps_per_run: STEPS,
      runs: RUNS,
      transition_ms: { median: median(transitions), p90: percentile(transitions, 90), p99: percentile(transitions, 99) },
      run_wall_ms: { median: Math.round(median(walls)) },
      events_per_step: Math.round((events / (RUNS * STEPS)) * 10) / 10,
      per_step: cost,
      spans_per_step: spans,
      node: process.version,
    };
    const dir = join(process.cwd(), 'bench', 'results');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'step-overhead.json'), `${JSON.stringify(result, null, 2)}\n`);
    const table = [
      `| steps x runs | median ms / transition | p90 | p99 | median run wall ms | events / step | engine CPU ms / step | transactions / step | statements / step |`,
      `| --- | --- | --- | --- | --- | --- | --- | --- | --- |`,
      `| ${STEPS} x ${RUNS} | ${result.transition_ms.median} | ${result.transition_ms.p90} | ${result.transition_ms.p99} | ${result.run_wall_ms.median} | ${result.events_per_step} | ${cost.engine_cpu_ms} | ${cost.transactions} | ${cost.statements} |`,
      '',
      spanTable('step', [{ name: `${STEPS} x ${RUNS}`, breakdown: spans }]),
      '',
      'Spans overlap: `append` also runs inside `plan`, `claim` and `report`; the wall of a step is not their sum (the notification hops between scheduler and worker are in no span).',
    ].join('\n');
    await writeFile(join(dir, 'step-overhead.md'), `${table}\n`);
    process.stdout.write(`${table}\n`);
  } finally {
    await booted.close();
    await benchDatabase.close();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
