/**
 * `npm run bench:replay` (issue 10): how fast replay folds (events per
 * second, a loop execution of thousands of events replayed from its first
 * event and from a snapshot) and how far the projector lags the ledger under
 * a load of 1,000 executions (p50/p99 of event_time to folded). Writes
 * bench/results/replay.{json,md}.
 *
 * DATABASE_URL names the server (a database of its own is recreated on it);
 * without it, the embedded PostgreSQL under NOETL_HOME is used.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig, Secret } from '@noetl/config';
import type { LedgerEvent } from '@noetl/event-kernel';
import { Engine, OutboxProjector, standaloneProjector } from '@noetl/runtime';
import { Database, OutboxRepository } from '@noetl/storage';
import pino from 'pino';
import { repoRoot } from '../../tools/fixtures/src/main';
import { openBenchDatabase } from '../bench-database';
import { median, percentile } from '../stats';

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
  const config = { ...loadConfig({ ...process.env, DATABASE_URL: benchDb.url, LOG_LEVEL: 'warn' }), encryptionKey: new Secret(randomBytes(32).toString('hex')) };
  const database = await Database.connect(benchDb.url);
  const lags: number[] = [];
  const observe = (event: LedgerEvent): void => void lags.push(Date.now() - Date.parse(event.event_time));
  const projector = standaloneProjector(database, config, { observe, shard: 'bench' });
  // The poll of a projector role without NATS.
  const feed = new OutboxProjector(new OutboxRepository(database, config.tenancy), (events) => projector.deliver(events), (options) => projector.flush(options), pino({ level: 'warn' }), { pollMs: 100, retentionMs: config.relay.retentionMs });
  const engine = await Engine.start({ config, database, roles: ['scheduler', 'worker'] });
  try {
    await engine.catalog.register(CHAIN);
    await engine.catalog.register(LOOP);
    feed.start();
    const began = performance.now();
    const ids = await Promise.all(Array.from({ length: EXECUTIONS }, () => engine.executions.start({ path: 'bench/replay-chain' }).then((s) => s.execution_id)));
    for (const id of ids) await engine.waitForTerminal(id, { timeoutMs: 600_000 });
    const loadMs = performance.now() - began;
    await feed.stop();
    await feed.drain();
    const loadEvents = lags.length;

    const loopId = (await engine.executions.start({ path: 'bench/replay-loop' })).execution_id;
    const loop = await engine.waitForTerminal(loopId, { timeoutMs: 600_000 });
    if (loop.status !== 'COMPLETED') throw new Error(`the loop execution ended ${loop.status}`);
    await feed.drain();
    const fromStart = await timedReplays(engine, loopId, false);
    const seeded = await timedReplays(engine, loopId, true);

    const result = {
      benchmark: 'replay',
      date: new Date().toISOString(),
      database: base.database.url ? 'DATABASE_URL' : 'embedded',
      node: process.version,
      projector_lag_ms: { executions: EXECUTIONS, events: loadEvents, load_wall_ms: Math.round(loadMs), p50: percentile(lags.slice(0, loadEvents), 50), p99: percentile(lags.slice(0, loadEvents), 99) },
      replay: { loop_items: LOOP_ITEMS, events: fromStart.events, from_first_event: fromStart, from_snapshot: seeded },
    };
    const table = [
      '| executions | events | projector lag p50 ms | p99 ms | replay of events | from the first event: ms (events/s) | from snapshot #' + String(seeded.snapshot) + ': ms (events folded) |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      `| ${EXECUTIONS} | ${loadEvents} | ${result.projector_lag_ms.p50} | ${result.projector_lag_ms.p99} | ${fromStart.events} | ${fromStart.ms} (${fromStart.rate}) | ${seeded.ms} (${seeded.folded}) |`,
    ].join('\n');
    const dir = join(repoRoot(), 'bench', 'results');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'replay.json'), `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(join(dir, 'replay.md'), `${table}\n`);
    process.stdout.write(`${table}\n`);
  } finally {
    await engine.stop();
    await feed.stop();
    await database.close();
    await benchDb.close();
  }
}

/** REPLAYS replays of the whole execution: the median time and the events each folded. */
async function timedReplays(engine: Engine, executionId: string, snapshots: boolean): Promise<{ events: number; folded: number; ms: number; rate: number; snapshot: number | null }> {
  const times: number[] = [];
  let replayed: Awaited<ReturnType<Engine['replay']['stateAt']>> | undefined;
  for (let run = 0; run < REPLAYS; run++) {
    const began = performance.now();
    replayed = await engine.replay.stateAt({ executionId, snapshots, projection: ['execution'] });
    times.push(performance.now() - began);
  }
  const ms = median(times);
  const folded = replayed!.events_folded;
  return { events: replayed!.position.stream_version, folded, ms: Math.round(ms * 10) / 10, rate: Math.round(folded / (ms / 1000)), snapshot: replayed!.seeded_from_snapshot };
}

void main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
