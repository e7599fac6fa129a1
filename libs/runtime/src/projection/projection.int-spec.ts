import { loadConfig } from '@noetl/config';
import { checksumsOf, foldEvents, REDUCER_VERSION, stateChecksum, type ExecutionState, type LedgerEvent } from '@noetl/event-kernel';
import { Client } from 'pg';
import { Database, EVENT_SELECT_LIST, ProjectionRepository, toLedgerEvent, type EventRow } from '@noetl/storage';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';
import { Engine } from '../engine';
import { rebuildProjections, standaloneProjector } from './rebuild';

jest.setTimeout(30_000);

const PLAYBOOK = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: projection, path: tests/projection}
workload: {n: 2}
workflow:
  - step: start
    tool: {kind: javascript, code: "return { doubled: n * 2 };", input: {n: "{{ workload.n }}"}}
    next: middle
  - step: middle
    tool: {kind: noop}
    set: {ctx.seen: "{{ start.doubled }}"}
    next: end
  - step: end
    tool: {kind: noop}
`;

interface ProjectionStored {
  version: string;
  state: ExecutionState;
  checksum: string;
  text: string;
}

/**
 * The projector (issue 10) in one process without NATS: it follows the
 * ledger into projection rows with the one reducer, reads come from them,
 * and replay at any event equals what the projection held after it.
 */
describe('projections and replay', () => {
  let t: TestEngine;
  const projections = new ProjectionRepository(REDUCER_VERSION);

  beforeAll(async () => {
    t = await startTestEngine({ roles: ['scheduler', 'worker', 'projector'], env: { LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' } });
    await t.engine.own.catalog.register(PLAYBOOK);
  });
  afterAll(async () => t?.close());

  async function stored(executionId: string): Promise<ProjectionStored | undefined> {
    const [row] = await t.database.query<ProjectionStored>(
      `SELECT version, state, checksum, state::text AS text FROM noetl.projection WHERE projection_type = 'execution' AND projection_key = $1`,
      [executionId],
    );
    return row;
  }

  async function ledger(executionId: string): Promise<LedgerEvent[]> {
    const rows = await t.database.query<EventRow>(
      `SELECT ${EVENT_SELECT_LIST} FROM noetl.event WHERE execution_id = $1 ORDER BY stream_version`,
      [executionId],
    );
    return rows.map(toLedgerEvent);
  }

  async function completedAndProjected(): Promise<{ executionId: string; lastVersion: number }> {
    const { execution_id: executionId } = await t.engine.own.executions.start({ path: 'tests/projection' });
    const detail = await t.engine.waitForTerminal(executionId, { timeoutMs: 20_000 });
    expect(detail.status).toBe('COMPLETED');
    const [last] = await t.database.query<{ version: string }>(
      `SELECT max(stream_version) AS version FROM noetl.event WHERE execution_id = $1`,
      [executionId],
    );
    const lastVersion = Number(last?.version);
    await waitFor(async () => Number((await stored(executionId))?.version ?? 0) === lastVersion, {
      description: 'the projection to reach the last event',
    });
    return { executionId, lastVersion };
  }

  it('projects an execution to its last event; replay at the last event gives the projection checksum; the API reads the projection', async () => {
    const { executionId, lastVersion } = await completedAndProjected();
    const row = (await stored(executionId))!;
    expect(row.checksum).toBe(stateChecksum(row.state));
    const replayed = await t.engine.own.replay.stateAt({ executionId });
    expect(replayed.position.stream_version).toBe(lastVersion);
    expect(replayed.checksums.all).toBe(row.checksum);
    expect(replayed.checksums).toEqual(checksumsOf(row.state));
    expect(replayed.state.execution).toMatchObject({ status: 'COMPLETED', ctx: { n: 2, seen: 4 } });
    expect(replayed.upcaster_digest).toMatch(/^[0-9a-f]{64}$/);

    // The read is the projection: change the row by hand (never done in production) and the API shows it.
    await t.database.query(
      `UPDATE noetl.projection SET state = jsonb_set(state, '{path}', '"tests/from-the-projection"') WHERE projection_key = $1`,
      [executionId],
    );
    expect((await t.engine.own.executions.get(executionId)).path).toBe('tests/from-the-projection');
    await t.database.query(`DELETE FROM noetl.projection WHERE projection_key = $1`, [executionId]);
    expect((await t.engine.own.executions.get(executionId)).path).toBe('tests/projection');
  });

  it('lists the steps read from a projection row in the order they ran (its jsonb orders keys by length)', async () => {
    const { executionId } = await completedAndProjected();
    expect(Object.keys((await stored(executionId))!.state.steps)).toEqual(['end', 'start', 'middle']);
    expect((await t.engine.own.executions.get(executionId)).steps.map((step) => step.step)).toEqual(['start', 'middle', 'end']);
  });

  it('replays the state at every event, equal to a fold of the prefix, by position and by event id, and between two event times', async () => {
    const { executionId, lastVersion } = await completedAndProjected();
    const events = await ledger(executionId);
    expect(events).toHaveLength(lastVersion);
    for (let position = 1; position <= lastVersion; position++) {
      const prefix = foldEvents(events.slice(0, position))!;
      const byPosition = await t.engine.own.replay.stateAt({ executionId, asOfPosition: position });
      const byEvent = await t.engine.own.replay.stateAt({ executionId, asOfEventId: events[position - 1]!.event_id, snapshots: false });
      expect(byPosition.checksums).toEqual(checksumsOf(prefix));
      expect(byEvent.checksums).toEqual(byPosition.checksums);
      expect(byEvent.position).toMatchObject({ event_id: events[position - 1]!.event_id, stream_version: position });
    }
    // A time between two events: the state after the earlier one.
    const second = events[1]!;
    const third = events[2]!;
    if (Date.parse(second.event_time) < Date.parse(third.event_time)) {
      const between = new Date((Date.parse(second.event_time) + Date.parse(third.event_time)) / 2).toISOString();
      expect((await t.engine.own.replay.stateAt({ executionId, asOfTime: between })).position.stream_version).toBe(2);
    }
  });

  it('seeds a replay from a snapshot only when its reducer and upcasters match, and gets the same answer', async () => {
    const { executionId, lastVersion } = await completedAndProjected();
    const events = await ledger(executionId);
    const at = 10;
    const seed = foldEvents(events.slice(0, at))!;
    const scope = t.config.tenancy;
    await projections.saveSnapshot(t.database, scope, {
      executionId,
      version: at,
      state: seed,
      checksum: stateChecksum(seed),
      ...t.engine.own.projector!.folding,
    });
    // Folded by another reducer: must never seed (its state is garbage on purpose).
    await projections.saveSnapshot(t.database, scope, {
      executionId,
      version: at + 1,
      state: { ...seed, path: 'wrong' },
      checksum: 'x',
      reducerVersion: 'other',
      registryDigest: t.engine.own.projector!.folding.registryDigest,
    });
    const seeded = await t.engine.own.replay.stateAt({ executionId, asOfPosition: lastVersion });
    const fromStart = await t.engine.own.replay.stateAt({ executionId, asOfPosition: lastVersion, snapshots: false });
    expect(seeded.seeded_from_snapshot).toBe(at);
    expect(seeded.events_folded).toBe(lastVersion - at);
    expect(fromStart.seeded_from_snapshot).toBeNull();
    expect(seeded.checksums).toEqual(fromStart.checksums);
  });

  it('rebuilds a projection deleted by hand byte-identical, and a stale delivery changes nothing', async () => {
    const { executionId } = await completedAndProjected();
    const before = (await stored(executionId))!;
    await t.database.query(`DELETE FROM noetl.projection WHERE projection_key = $1`, [executionId]);
    expect(await rebuildProjections(t.database, t.config, [executionId])).toBe(1);
    const after = (await stored(executionId))!;
    expect(after.text).toBe(before.text);
    expect(after.checksum).toBe(before.checksum);

    const events = await ledger(executionId);
    const projected = await t.engine.own.projector!.deliver([events[0]!, events[1]!]);
    expect(projected).toEqual([expect.objectContaining({ executionId, folded: 0, written: false })]);
    expect((await stored(executionId))!.text).toBe(before.text);
    expect(await t.engine.metrics.registry.getSingleMetricAsString('noetl_projector_stale_total')).toMatch(
      /noetl_projector_stale_total\{shard="0"\} [1-9]/,
    );

    // A projector that was delivered only the last event fills the gap from the ledger, never skips it.
    await t.database.query(`DELETE FROM noetl.projection WHERE projection_key = $1`, [executionId]);
    const fresh = standaloneProjector(t.database, t.config);
    expect(await fresh.deliver([events.at(-1)!])).toEqual([
      expect.objectContaining({ executionId, from: 0, version: events.length, folded: events.length, written: true }),
    ]);
    expect((await stored(executionId))!.text).toBe(before.text);
  });

  it('reads a row another reducer folded as absent, and the projector writes it over at the same version', async () => {
    const { executionId, lastVersion } = await completedAndProjected();
    const before = (await stored(executionId))!;
    // As an upgrade finds a row of the previous reducer: another shape, at the last version.
    await t.database.query(
      `UPDATE noetl.projection SET reducer_version = 'previous', state = jsonb_set(state, '{path}', '"tests/old-shape"') WHERE projection_key = $1`,
      [executionId],
    );
    expect((await t.engine.own.executions.get(executionId)).path).toBe('tests/projection');
    expect(await projections.get(t.database, t.config.tenancy, executionId)).toBeUndefined();

    expect(await standaloneProjector(t.database, t.config).project(executionId)).toMatchObject({ version: lastVersion, written: true });
    const [row] = await t.database.query<{ reducer_version: string; text: string }>(
      `SELECT reducer_version, state::text AS text FROM noetl.projection WHERE projection_key = $1`,
      [executionId],
    );
    expect(row).toEqual({ reducer_version: REDUCER_VERSION, text: before.text });
  });

  it('does not project past an event changed behind the runtime, and counts it', async () => {
    const { executionId, lastVersion } = await completedAndProjected();
    const changed = (await ledger(executionId)).find((event) => event.event_type === 'command.completed')!;
    const superuser = new Client({ connectionString: t.config.database.url!.reveal() });
    await superuser.connect();
    try {
      await superuser.query('BEGIN');
      await superuser.query('SET LOCAL session_replication_role = replica');
      await superuser.query(`UPDATE noetl.event SET payload = jsonb_set(payload, '{result}', '{"doubled": 400}') WHERE event_id = $1`, [
        changed.event_id,
      ]);
      await superuser.query(`DELETE FROM noetl.projection WHERE projection_key = $1`, [executionId]);
      await superuser.query('COMMIT');
    } finally {
      await superuser.end();
    }
    expect(await t.engine.own.projector!.rebuild([executionId])).toBe(1);
    expect(Number((await stored(executionId))!.version)).toBe(changed.stream_version - 1);
    expect(changed.stream_version - 1).toBeLessThan(lastVersion);
    expect(await t.engine.metrics.registry.getSingleMetricAsString('noetl_projector_corrupt_events_total')).toMatch(
      /noetl_projector_corrupt_events_total\{shard="0"\} [1-9]/,
    );
  });

  it("refuses a replay of another tenant's execution", async () => {
    const { executionId } = await completedAndProjected();
    const config = loadConfig({ DATABASE_URL: t.testDatabase.url, LOG_LEVEL: 'silent', NOETL_TENANT_ID: 'someone-else' });
    const database = await Database.connect(t.testDatabase.url);
    const other = await Engine.start({ config, database, roles: [] });
    try {
      await expect(other.own.replay.stateAt({ executionId })).rejects.toMatchObject({ code: 'not_found' });
      await expect(other.own.executions.get(executionId)).rejects.toMatchObject({ code: 'not_found' });
      expect(await projections.get(database, config.tenancy, executionId)).toBeUndefined();
    } finally {
      await other.stop();
      await database.close();
    }
  });
});
