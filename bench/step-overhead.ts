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
import { startBenchEngine, type BenchEngine } from './bench-engine';
import { chainPlaybook } from './chain-playbook';
import { spanBreakdown, spanTable, spanTotals } from './spans';
import { median, percentile } from './stats';

const STEPS = 100;
const RUNS = 5;
/** Runs of the ledger hash chain's A/B (issue 25 item 3), alternating with the chain's trigger on and off. */
const CHAIN_RUNS = 10;

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn' });
  const benchDatabase = await openBenchDatabase(config, 'noetl_bench_steps');
  const booted = await startBenchEngine(config, benchDatabase.url, config.worker.concurrency).catch(async (error: unknown) => {
    await benchDatabase.close();
    throw error;
  });
  const { engine, database } = booted;
  try {
    await engine.own.catalog.register(chainPlaybook(STEPS, `bench/chain-${STEPS}`));
    const transitions: number[] = [];
    const walls: number[] = [];
    let events = 0;
    const spansBefore = await spanTotals(engine.metrics);
    const countsBefore = { ...database.counts };
    const cpuBefore = process.cpuUsage();
    for (let run = 0; run < RUNS; run++) {
      const began = performance.now();
      const { execution_id } = await engine.own.executions.start({ path: `bench/chain-${STEPS}` });
      const detail = await engine.waitForTerminal(execution_id, { timeoutMs: 600_000 });
      walls.push(performance.now() - began);
      if (detail.status !== 'COMPLETED') throw new Error(`run ${run} ended ${detail.status}: ${detail.error?.message ?? ''}`);
      const exits = (await engine.own.executions.events(execution_id, { type: [EventType.StepExit], limit: 1000 })).events;
      for (let i = 1; i < exits.length; i++) transitions.push(Date.parse(exits[i]!.created_at) - Date.parse(exits[i - 1]!.created_at));
      events += (await engine.own.executions.events(execution_id, { limit: 1000 })).events.length;
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
      hash_chain: await hashChainCost(engine, database),
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
      '',
      '| ledger hash chain (runs alternating) | median run wall ms | append ms / step |',
      '| --- | --- | --- |',
      `| on | ${result.hash_chain.on.run_wall_ms} | ${result.hash_chain.on.append_ms_per_step} |`,
      `| off | ${result.hash_chain.off.run_wall_ms} | ${result.hash_chain.off.append_ms_per_step} |`,
      `| on / off | ${result.hash_chain.wall_ratio} | ${result.hash_chain.append_ratio} |`,
    ].join('\n');
    await writeFile(join(dir, 'step-overhead.md'), `${table}\n`);
    process.stdout.write(`${table}\n`);
  } finally {
    await booted.close();
    await benchDatabase.close();
  }
}

/**
 * What the ledger's hash chain costs a step: the same chain run with its
 * trigger (migration EventHashChain) on and off, alternating, so that the
 * machine's drift falls on both alike.
 */
async function hashChainCost(engine: BenchEngine['engine'], database: BenchEngine['database']) {
  const walls = { on: [] as number[], off: [] as number[] };
  const append = { on: 0, off: 0 };
  for (let run = 0; run < CHAIN_RUNS; run++) {
    const side = run % 2 === 0 ? 'off' : 'on';
    await database.query(`ALTER TABLE noetl.event ${side === 'on' ? 'ENABLE' : 'DISABLE'} TRIGGER event_hash_chain`);
    const before = await spanTotals(engine.metrics);
    const began = performance.now();
    const { execution_id } = await engine.own.executions.start({ path: `bench/chain-${STEPS}` });
    const detail = await engine.waitForTerminal(execution_id, { timeoutMs: 600_000 });
    walls[side].push(performance.now() - began);
    if (detail.status !== 'COMPLETED') throw new Error(`hash chain run ${run} ended ${detail.status}`);
    append[side] += spanBreakdown(before, await spanTotals(engine.metrics), STEPS).find((row) => row.span === 'append')?.ms_per_unit ?? 0;
  }
  await database.query('ALTER TABLE noetl.event ENABLE TRIGGER event_hash_chain');
  const sideOf = (side: 'on' | 'off') => ({
    run_wall_ms: Math.round(median(walls[side])),
    append_ms_per_step: Math.round((append[side] / (CHAIN_RUNS / 2)) * 100) / 100,
  });
  const on = sideOf('on');
  const off = sideOf('off');
  const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
  return {
    on,
    off,
    wall_ratio: ratio(on.run_wall_ms, off.run_wall_ms),
    append_ratio: ratio(on.append_ms_per_step, off.append_ms_per_step),
  };
}

void main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
