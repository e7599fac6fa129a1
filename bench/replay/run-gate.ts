import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadConfig, type NoetlConfig } from '@noetl/config';
import { EVENTS_STREAM, Engine, projectorDurable, standaloneProjector, startDeploymentRelay } from '@noetl/runtime';
import { Database } from '@noetl/storage';
import { connect } from 'nats';
import pino from 'pino';
import { Registry } from 'prom-client';
import { runCorpus as runFixtures } from '../../tools/fixtures/src/main';
import { openBenchDatabase } from '../bench-database';
import { checkParity, type Parity } from './check';
import { runCorpus, type CorpusRun } from './corpus';
import { ProjectionRecorder } from './recorder';

/** Small, so most replays are seeded by a snapshot and the gate checks that path too. */
const SNAPSHOT_EVERY = 25;
/** How long the projectors may take to fold what the corpus left, once it has ended. */
const CATCH_UP_MS = 120_000;
const CATCH_UP_POLL_MS = 100;

export interface GateOptions {
  /** The environment the deployment is configured from: DATABASE_URL names the server, NATS_URL selects the JetStream path. */
  env: Record<string, string | undefined>;
  /** The database the gate recreates on that server. */
  databaseName: string;
  /** The repository root (examples, fixture expectations). */
  root: string;
  /** The NoETL fixtures run after the corpus: every one, the first n, or none. */
  fixtures: 'all' | number | 'none';
  /** Projector shards on the JetStream path (one process each, as a StatefulSet runs them). */
  shards: number;
}

export interface GateResult {
  /** `jetstream`: relay -> JetStream -> projector shards (NATS_URL set); `in-process`: the projector role follows the ledger itself. */
  path: 'jetstream' | 'in-process';
  runs: CorpusRun[];
  parities: Parity[];
  /** Executions whose rebuilt projection differs from the one the run left. */
  rebuilt: string[];
  summary: { executions: number; events_replayed: number; positions_checked: number; rebuild_mismatches: number; mismatches: number };
}

/**
 * The replay parity gate (issue 10 item 5, issue 30) on the deployment users
 * run: projector processes (with NATS, one per shard, consuming what the
 * event relay publishes to JetStream; without it, one that follows the
 * ledger) record the checksum they held after every event while the corpus
 * runs in processes of its own (the examples, a loop of frames with retries,
 * a cancelled run, a resumed run, the NoETL fixtures asked for). Once every
 * event is published and every shard's lag is zero, each execution is
 * replayed at every position and compared with what the projectors held and
 * with its live row; then every projection is rebuilt and compared again.
 */
export async function runReplayGate(options: GateOptions): Promise<GateResult> {
  const base = loadConfig({ ...options.env, LOG_LEVEL: 'warn' });
  const gateDb = await openBenchDatabase(base, options.databaseName);
  // With NATS, a tenant of this run's own: the stream on a shared server holds other runs' events under theirs.
  const env = {
    ...options.env,
    DATABASE_URL: gateDb.url,
    LOG_LEVEL: 'warn',
    NOETL_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    NOETL_SHARD_COUNT: String(base.nats ? options.shards : 1),
    // The corpus's fixtures write with the server's own login beside the ledger, as `npm run fixtures` does.
    NOETL_TOOLS_LEDGER_ACCESS: options.env['NOETL_TOOLS_LEDGER_ACCESS'] ?? 'database',
    // Its python steps are ours, on a server that may trust this host (the test services do).
    NOETL_PYTHON_LEDGER_ACCESS: options.env['NOETL_PYTHON_LEDGER_ACCESS'] ?? 'allow',
    ...(base.nats ? { NOETL_TENANT_ID: `gate_${randomBytes(4).toString('hex')}` } : {}),
  };
  const config = loadConfig(env);
  const database = await Database.connect(gateDb.url);
  const recorder = new ProjectionRecorder();
  const projectors: Engine[] = [];
  try {
    for (let shard = 0; shard < config.projector.shardCount; shard++) {
      const shardConfig = loadConfig({ ...env, NOETL_SHARD_ID: String(shard) });
      projectors.push(
        await Engine.start({
          config: shardConfig,
          database,
          roles: ['projector'],
          projectorTuning: { observe: recorder.observe, snapshotEvery: SNAPSHOT_EVERY },
        }),
      );
    }
    const runs = await runCorpus(config, database, join(options.root, 'examples'));
    if (options.fixtures !== 'none') {
      const fixturesExit = await runFixtures(
        {
          dir: join(options.root, 'test/fixtures/noetl/playbooks'),
          expectations: join(options.root, 'tools/fixtures/expectations.yaml'),
          ...(options.fixtures === 'all' ? {} : { limit: options.fixtures }),
        },
        env,
      );
      console.log(`fixtures: exit ${fixturesExit} (the gate checks replay parity of whatever they left in the ledger)`);
    }
    await caughtUp(config, database, projectors);
    await stopAll(projectors);
    const engine = await Engine.start({ config, database, roles: [] });
    try {
      const ids = await executionIds(database);
      const parities: Parity[] = [];
      for (const id of ids) parities.push(await checkParity(engine, database, recorder, id));
      const rebuilt = await rebuildMismatches(database, config, ids);
      const events = parities.reduce((sum, p) => sum + p.events, 0);
      const mismatches = parities.reduce((sum, p) => sum + p.mismatches.length, 0) + rebuilt.length;
      return {
        path: config.nats ? 'jetstream' : 'in-process',
        runs,
        parities,
        rebuilt,
        summary: {
          executions: parities.length,
          events_replayed: events,
          positions_checked: events,
          rebuild_mismatches: rebuilt.length,
          mismatches,
        },
      };
    } finally {
      await engine.stop();
      await dropConsumers(config);
    }
  } finally {
    await stopAll(projectors);
    await database.close();
    await gateDb.close();
  }
}

/**
 * Waits until every event is folded: with NATS, the corpus's processes have
 * stopped, so the deployment's relay publishes what they left unpublished
 * while the shards' consumers drain; without it, the projector follows the
 * ledger itself.
 */
async function caughtUp(config: NoetlConfig, database: Database, projectors: readonly Engine[]): Promise<void> {
  const { nats } = config;
  const relaying = nats
    ? await startDeploymentRelay({ config: { ...config, nats }, database, registry: new Registry(), logger: pino({ level: 'warn' }) })
    : undefined;
  const deadline = Date.now() + CATCH_UP_MS;
  try {
    for (;;) {
      const unpublished = (await relaying?.backlog()) ?? 0;
      const lags = await Promise.all(projectors.map(async (projector) => (await projector.projectionLag()) ?? 0));
      if (unpublished === 0 && lags.every((lag) => lag === 0)) return;
      if (Date.now() > deadline)
        throw new Error(
          `the projectors did not catch up within ${CATCH_UP_MS} ms: ${unpublished} events unpublished, lag per shard ${lags.join(', ')}`,
        );
      await new Promise((done) => setTimeout(done, CATCH_UP_POLL_MS));
    }
  } finally {
    await relaying?.stop();
  }
}

async function stopAll(engines: Engine[]): Promise<void> {
  await Promise.all(engines.splice(0).map((engine) => engine.stop()));
}

/** Deletes this run's durable consumers (its own tenant's) from the shared events stream. */
async function dropConsumers(config: NoetlConfig): Promise<void> {
  if (!config.nats) return;
  const nats = await connect({ servers: config.nats.servers });
  try {
    const jsm = await nats.jetstreamManager();
    const { shardCount } = config.projector;
    for (let shard = 0; shard < shardCount; shard++)
      await jsm.consumers.delete(EVENTS_STREAM, projectorDurable(config.tenancy, shard, shardCount)).catch(() => undefined);
  } finally {
    await nats.close();
  }
}

async function executionIds(database: Database): Promise<string[]> {
  const rows = await database.query<{ execution_id: string }>(
    `SELECT execution_id FROM noetl.event WHERE event_type = 'execution.started' ORDER BY execution_id`,
  );
  return rows.map((row) => row.execution_id);
}

/** Rebuilds every projection from the ledger; the executions whose row is not byte-identical to the one the run left. */
async function rebuildMismatches(database: Database, config: NoetlConfig, ids: readonly string[]): Promise<string[]> {
  const before = await rowTexts(database);
  await standaloneProjector(database, config, { snapshotEvery: SNAPSHOT_EVERY }).rebuild();
  const after = await rowTexts(database);
  return ids.filter((id) => before.get(id) === undefined || before.get(id) !== after.get(id));
}

async function rowTexts(database: Database): Promise<Map<string, string>> {
  const rows = await database.query<{ projection_key: string; text: string }>(
    `SELECT projection_key, checksum || ':' || state::text AS text FROM noetl.projection WHERE projection_type = 'execution'`,
  );
  return new Map(rows.map((row) => [row.projection_key, row.text]));
}
