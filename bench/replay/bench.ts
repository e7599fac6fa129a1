/**
 * `npm run bench:replay` (issue 10, issue 30): how fast replay folds (events
 * per second, a loop execution of thousands of events replayed from its
 * first event and from a snapshot) and how far the projector lags the ledger
 * under a load of 1,000 executions started at once, in one process with the
 * scheduler and the worker as `noetl server` runs them without NATS: from
 * each event's commit to its fold (p50/p99; the commit as a probe of the
 * ledger saw it, an upper bound within 10 ms), and from its event_time (its
 * sealing, before a commit that waited for a pooled connection) to its fold.
 * Writes bench/results/replay.{json,md}.
 *
 * DATABASE_URL names the server (a database of its own is recreated on it);
 * without it, the embedded PostgreSQL under NOETL_HOME is used.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig, Secret } from '@noetl/config';
import type { LedgerEvent } from '@noetl/event-kernel';
import { Engine, type TenantRuntime } from '@noetl/runtime';
import { Database } from '@noetl/storage';
import { repoRoot } from '../../tools/fixtures/src/main';
import { openBenchDatabase } from '../bench-database';
import { median, percentile } from '../stats';
import { CommitProbe } from './commit-probe';

const BENCH_DATABASE = 'noetl_bench_replay';
const LOOP_ITEMS = 2_000;
const EXECUTIONS = 1_000;
const REPLAYS = 5;

const LOOP = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: bench_replay_loop, path: bench/replay-loop}
workload: {n: ${LOOP_ITEMS}}
workflow:
  - step: start
    loop: {in: "{{ range(workload.n) | list }}", iterator: item, spec: {mode: parallel, max_in_flight: 16, frame: {max_rows: 1}}}
    tool: {kind: noop}
`;

const CHAIN = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: bench_replay_chain, path: bench/replay-chain}
workflow:
  - step: start
    tool: {kind: noop}
    next: middle
  - step: middle
    tool: {kind: noop}
    next: end
  - step: end
    tool: {kind: noop}
`;

async function main(): Promise<void> {
  const base = loadConfig({ ...process.env, LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn' });
  const benchDb = await openBenchDatabase(base, BENCH_DATABASE);
  const config = {
    ...loadConfig({ ...process.env, DATABASE_URL: benchDb.url, LOG_LEVEL: 'warn' }),
    encryptionKey: new Secret(randomBytes(32).toString('hex')),
  };
  const database = await Database.connect(benchDb.url);
  const folds: { event: LedgerEvent; at: number }[] = [];
  let recording = true;
  const observe = (event: LedgerEvent): void => void (recording && folds.push({ event, at: Date.now() }));
  const engine = await Engine.start({ config, database, roles: ['scheduler', 'worker', 'projector'], projectorTuning: { observe } });
  const probe = await CommitProbe.start(benchDb.url);
  try {
    await engine.own.catalog.register(CHAIN);
    await engine.own.catalog.register(LOOP);
    const began = performance.now();
    const ids = await Promise.all(
      Array.from({ length: EXECUTIONS }, () => engine.own.executions.start({ path: 'bench/replay-chain' }).then((s) => s.execution_id)),
    );
    for (const id of ids) await engine.waitForTerminal(id, { timeoutMs: 600_000 });
    const loadMs = performance.now() - began;
    await waitUntilProjected(engine);
    recording = false;
    await probe.stop();
    const fromCommit = folds.map(({ event, at }) => at - (probe.visibleAfter(event.event_id) ?? Number.NaN)).filter(Number.isFinite);
    const fromEventTime = folds.map(({ event, at }) => at - Date.parse(event.event_time));

    const loopId = (await engine.own.executions.start({ path: 'bench/replay-loop' })).execution_id;
    const loop = await engine.waitForTerminal(loopId, { timeoutMs: 600_000 });
    if (loop.status !== 'COMPLETED') throw new Error(`the loop execution ended ${loop.status}`);
    await waitUntilProjected(engine);
    const fromStart = await timedReplays(engine, loopId, false);
    const seeded = await timedReplays(engine, loopId, true);

    const result = {
      benchmark: 'replay',
      date: new Date().toISOString(),
      database: base.database.url ? 'DATABASE_URL' : 'embedded',
      node: process.version,
      projector_lag_ms: {
        executions: EXECUTIONS,
        events: folds.length,
        load_wall_ms: Math.round(loadMs),
        from_commit: {
          events: fromCommit.length,
          p50: percentile(fromCommit, 50),
          p99: percentile(fromCommit, 99),
          max: Math.max(...fromCommit),
        },
        from_event_time: { p50: percentile(fromEventTime, 50), p99: percentile(fromEventTime, 99), max: Math.max(...fromEventTime) },
      },
      replay: { loop_items: LOOP_ITEMS, events: fromStart.events, from_first_event: fromStart, from_snapshot: seeded },
    };
    const lag = result.projector_lag_ms;
    const table = [
      '| executions | events | projector lag from commit p50 / p99 / max ms | from event_time p50 / p99 ms | replay of events | from the first event: ms (events/s) | from snapshot #' +
        String(seeded.snapshot) +
        ': ms (events folded) |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      `| ${EXECUTIONS} | ${lag.events} | ${lag.from_commit.p50} / ${lag.from_commit.p99} / ${lag.from_commit.max} | ${lag.from_event_time.p50} / ${lag.from_event_time.p99} | ${fromStart.events} | ${fromStart.ms} (${fromStart.rate}) | ${seeded.ms} (${seeded.folded}) |`,
    ].join('\n');
    const dir = join(repoRoot(), 'bench', 'results');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'replay.json'), `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(join(dir, 'replay.md'), `${table}\n`);
    process.stdout.write(`${table}\n`);
  } finally {
    await probe.stop().catch(() => undefined);
    await engine.stop();
    await database.close();
    await benchDb.close();
  }
}

/** Until the projector role has folded every committed event. */
async function waitUntilProjected(engine: Engine): Promise<void> {
  while ((await engine.projectionLag()) !== 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** REPLAYS replays of the whole execution: the median time and the events each folded. */
async function timedReplays(
  engine: Engine,
  executionId: string,
  snapshots: boolean,
): Promise<{ events: number; folded: number; ms: number; rate: number; snapshot: number | null }> {
  const times: number[] = [];
  let replayed: Awaited<ReturnType<TenantRuntime['replay']['stateAt']>> | undefined;
  for (let run = 0; run < REPLAYS; run++) {
    const began = performance.now();
    replayed = await engine.own.replay.stateAt({ executionId, snapshots, projection: ['execution'] });
    times.push(performance.now() - began);
  }
  const ms = median(times);
  const folded = replayed!.events_folded;
  return {
    events: replayed!.position.stream_version,
    folded,
    ms: Math.round(ms * 10) / 10,
    rate: Math.round(folded / (ms / 1000)),
    snapshot: replayed!.seeded_from_snapshot,
  };
}

void main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
