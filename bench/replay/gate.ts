/**
 * `npm run replay:gate` (issue 10 item 5): runs a corpus of executions (the
 * examples, a loop of frames with retries, a cancelled run, a resumed run and,
 * unless --no-fixtures, the NoETL fixtures) while a projector records the
 * checksum it held after every event; then, per execution, replays every
 * position and compares; then rebuilds every projection from the ledger and
 * compares again. Exits 1 on any mismatch. Writes bench/results/replay-gate.{json,md}.
 *
 * DATABASE_URL names the server (a database of its own is recreated on it);
 * without it, the embedded PostgreSQL under NOETL_HOME is used.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadConfig, Secret } from '@noetl/config';
import { Engine, OutboxProjector, standaloneProjector } from '@noetl/runtime';
import { Database, OutboxRepository } from '@noetl/storage';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { repoRoot, runCorpus as runFixtures } from '../../tools/fixtures/src/main';
import { openBenchDatabase } from '../bench-database';
import { checkParity, type Parity } from './check';
import { runCorpus, type CorpusRun } from './corpus';
import { ProjectionRecorder } from './recorder';

const GATE_DATABASE = 'noetl_replay_gate';
/** Small, so most replays are seeded by a snapshot and the gate checks that path too. */
const SNAPSHOT_EVERY = 25;

async function main(): Promise<number> {
  const root = repoRoot();
  const withFixtures = !process.argv.includes('--no-fixtures');
  const base = loadConfig({ ...process.env, LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn' });
  const gateDb = await openBenchDatabase(base, GATE_DATABASE);
  const config = { ...loadConfig({ ...process.env, DATABASE_URL: gateDb.url, LOG_LEVEL: 'warn' }), encryptionKey: new Secret(randomBytes(32).toString('hex')) };
  const database = await Database.connect(gateDb.url);
  const recorder = new ProjectionRecorder();
  const projector = standaloneProjector(database, config, { snapshotEvery: SNAPSHOT_EVERY, observe: recorder.observe, shard: 'gate' });
  const feed = new OutboxProjector(new OutboxRepository(database, config.tenancy), (events) => projector.deliver(events), (options) => projector.flush(options), pino({ level: 'warn' }), { pollMs: 50, retentionMs: config.relay.retentionMs });
  feed.start();
  try {
    const runs: CorpusRun[] = await runCorpus(config, database, join(root, 'examples'));
    if (withFixtures) {
      const fixturesExit = await runFixtures(
        { dir: resolve(root, '../shared/noetl-fixtures/playbooks'), expectations: join(root, 'tools/fixtures/expectations.yaml'), includeLoops: true },
        { ...process.env, DATABASE_URL: gateDb.url, LOG_LEVEL: 'warn' },
      );
      console.log(`fixtures: exit ${fixturesExit} (the gate checks replay parity of whatever they left in the ledger)`);
    }
    await feed.stop();
    await feed.drain();
    const engine = await Engine.start({ config, database, roles: [] });
    try {
      const ids = await executionIds(database);
      const parities: Parity[] = [];
      for (const id of ids) parities.push(await checkParity(engine, database, recorder, id));
      const rebuilt = await rebuildMismatches(database, config, ids);
      return await report(runs, parities, rebuilt, root);
    } finally {
      await engine.stop();
    }
  } finally {
    await feed.stop();
    await database.close();
    await gateDb.close();
  }
}

async function executionIds(database: Database): Promise<string[]> {
  const rows = await database.query<{ execution_id: string }>(`SELECT execution_id FROM noetl.event WHERE event_type = 'execution.started' ORDER BY execution_id`);
  return rows.map((row) => row.execution_id);
}

/** Rebuilds every projection from the ledger; the executions whose row is not byte-identical to the one the run left. */
async function rebuildMismatches(database: Database, config: ReturnType<typeof loadConfig>, ids: readonly string[]): Promise<string[]> {
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

async function report(runs: CorpusRun[], parities: Parity[], rebuilt: string[], root: string): Promise<number> {
  const events = parities.reduce((sum, p) => sum + p.events, 0);
  const positions = parities.reduce((sum, p) => sum + p.positions, 0);
  const mismatches = parities.reduce((sum, p) => sum + p.mismatches.length, 0) + rebuilt.length;
  const summary = { executions: parities.length, events_replayed: events, positions_checked: positions, rebuild_mismatches: rebuilt.length, mismatches };
  const lines = [
    '# Replay parity gate',
    '',
    '| executions | events replayed | positions checked | rebuild mismatches | mismatches |',
    '| --- | --- | --- | --- | --- |',
    `| ${summary.executions} | ${events} | ${positions} | ${rebuilt.length} | ${mismatches} |`,
    '',
    'Named runs of the gate corpus:',
    '',
    ...runs.map((run) => `- ${run.name}: ${run.executionId} ${run.status}`),
    ...parities.filter((p) => p.mismatches.length > 0).flatMap((p) => [``, `execution ${p.executionId}:`, ...p.mismatches.map((m) => `- ${m}`)]),
    ...rebuilt.map((id) => `- execution ${id}: the rebuilt projection differs from the one the run left`),
  ];
  const dir = join(root, 'bench/results');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'replay-gate.json'), `${JSON.stringify({ summary, runs, parities }, null, 2)}\n`);
  await writeFile(join(dir, 'replay-gate.md'), `${lines.join('\n')}\n`);
  console.log(lines.join('\n'));
  return mismatches === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`replay gate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
