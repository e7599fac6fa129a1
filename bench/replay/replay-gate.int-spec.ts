import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { baseDatabaseUrl } from '../../test/support/postgres';
import { requireNats } from '../../test/support/services';
import { dropDatabase } from '../bench-database';
import { runReplayGate } from './run-gate';

// Each case runs the examples and ten fixtures, then replays every position of every execution.
jest.setTimeout(240_000);

const FIXTURES = 10;

/**
 * The reduced replay gate (issue 30): the examples, the gate's own
 * executions and the first ten NoETL fixtures, on the two deployments users
 * run. `npm run replay:gate` runs every fixture (README, "Replay").
 */
describe('the replay parity gate', () => {
  const databases: string[] = [];

  afterAll(async () => {
    for (const name of databases) await dropDatabase(baseDatabaseUrl(), name);
  });

  const gate = async (natsUrl: string | undefined) => {
    const databaseName = `noetl_t_gate_${randomBytes(4).toString('hex')}`;
    databases.push(databaseName);
    const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: baseDatabaseUrl(), NATS_URL: natsUrl };
    return runReplayGate({ env, databaseName, root: join(__dirname, '..', '..'), fixtures: FIXTURES, shards: 2 });
  };

  it('finds every position replayed equal to what the projector shards folded from JetStream, and rebuilds byte-identical rows', async () => {
    const result = await gate(await requireNats());
    expect(result.path).toBe('jetstream');
    // The gate's corpus (a rerun among its runs) and the fixtures' executions, with their children.
    expect(result.runs.map((run) => [run.name, run.status])).toContainEqual(['rerun from a step', 'COMPLETED']);
    expect(result.summary.executions).toBeGreaterThanOrEqual(result.runs.length + FIXTURES);
    expect(result.summary.positions_checked).toBeGreaterThan(1000);
    expect({
      mismatches: result.parities.flatMap((p) => p.mismatches.map((m) => `${p.executionId}: ${m}`)),
      rebuilt: result.rebuilt,
    }).toEqual({ mismatches: [], rebuilt: [] });
  });

  it('finds the same without NATS, where the projector role follows the ledger in process', async () => {
    const result = await gate(undefined);
    expect(result.path).toBe('in-process');
    expect(result.runs.map((run) => [run.name, run.status])).toContainEqual(['rerun from a step', 'COMPLETED']);
    expect(result.summary.executions).toBeGreaterThanOrEqual(result.runs.length + FIXTURES);
    expect({
      mismatches: result.parities.flatMap((p) => p.mismatches.map((m) => `${p.executionId}: ${m}`)),
      rebuilt: result.rebuilt,
    }).toEqual({ mismatches: [], rebuilt: [] });
  });
});
