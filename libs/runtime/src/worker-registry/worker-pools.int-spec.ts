import { loadConfig } from '@noetl/config';
import { isJsonObject } from '@noetl/dsl';
import { EventType } from '@noetl/event-kernel';
import { Database } from '@noetl/storage';
import { TEST_ENCRYPTION_KEY } from '../../../../test/support/test-engine';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { waitFor } from '../../../../test/support/wait-for';
import { InProcessBus } from '../bus/in-process-bus';
import { Engine } from '../engine';

jest.setTimeout(60_000);

/** Steps of pool a (the playbook's default), of pool `stepPool`, and a loop whose frames are pool `loopPool`'s. */
const PLAYBOOK = (path: string, stepPool: string, loopPool: string): string => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: pools, path: ${path}}
executor: {spec: {pool: a}}
workflow:
  - step: start
    tool: {kind: javascript, code: "return 1"}
    next: [{step: on_b}]
  - step: on_b
    tool: {kind: javascript, code: "return 2", pool: ${stepPool}}
    next: [{step: fan}]
  - step: fan
    loop: {in: "{{ [1, 2, 3, 4, 5, 6] }}", iterator: n, spec: {mode: parallel, max_in_flight: 3}}
    tool: {kind: javascript, code: "return input.n * 10", input: {n: "{{ n }}"}, pool: ${loopPool}}
    next: [{step: end}]
  - step: end
    tool: {kind: javascript, code: "return input.r", input: {r: "{{ fan.results }}"}}
`;

/**
 * Worker pools that route (issue 27 item 6): a scheduler with a worker of
 * pool a, and workers of pools b and none, each an engine of its own on one
 * database and one bus, as separate processes would be. Each step runs only on its pool's
 * worker; a pool without a worker keeps its work ISSUED, counted as that
 * pool's backlog, until a worker of the pool starts.
 */
describe('worker pools', () => {
  let testDatabase: TestDatabase;
  let database: Database;
  const bus = new InProcessBus();
  const engines: Engine[] = [];
  let scheduler: Engine;

  const start = async (roles: ('scheduler' | 'worker')[], workerId: string, pool?: string): Promise<Engine> => {
    const config = loadConfig({
      DATABASE_URL: testDatabase.url,
      LOG_LEVEL: 'silent',
      NOETL_SWEEP_MS: '100',
      NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      NOETL_WORKER_CONCURRENCY: '4',
      ...(pool ? { NOETL_WORKER_POOL: pool } : {}),
    });
    const engine = await Engine.start({ config, database, roles, bus, workerId });
    engines.push(engine);
    return engine;
  };

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    database = await Database.connect(testDatabase.url);
    // The scheduler's own worker serves pool a: its commands go to it at issue (eager dispatch), the other pools' never.
    scheduler = await start(['scheduler', 'worker'], 'worker-a', 'a');
    await start(['worker'], 'worker-none');
    await scheduler.own.catalog.register(PLAYBOOK('tests/pools', 'b', 'b'));
  });
  afterAll(async () => {
    for (const engine of engines.reverse()) await engine.stop();
    await bus.close();
    await database?.close();
    await testDatabase?.drop();
  });

  it('runs each step on its pool, leaves a pool without workers waiting as backlog, and refuses claims from another pool', async () => {
    const { execution_id: executionId } = await scheduler.own.executions.start({ path: 'tests/pools' });
    const issuedToB = await waitFor(async () => {
      const issued = (await scheduler.own.executions.events(executionId, { type: [EventType.CommandIssued] })).events;
      return issued.find((event) => event.step === 'on_b')?.command_id ?? undefined;
    });

    // Offered again by the sweep (its row stamped), and still nobody's: neither worker-a nor the worker without a pool takes it.
    await waitFor(async () => {
      const [row] = await database.query<{ reoffered: boolean }>(
        'SELECT notified_at > created_at AS reoffered FROM noetl.command WHERE command_id = $1',
        [issuedToB],
      );
      return row?.reoffered === true || undefined;
    });
    const [row] = await database.query<{ status: string; pool: string | null }>(
      'SELECT status, pool FROM noetl.command WHERE command_id = $1',
      [issuedToB],
    );
    expect(row).toEqual({ status: 'ISSUED', pool: 'b' });
    const pools = await scheduler.own.workers.pools();
    expect(pools.find((view) => view.pool === 'b')).toEqual({
      pool: 'b',
      workers: 0,
      slots: 0,
      free_slots: 0,
      backlog: { commands: 1, frames: 0 },
    });
    expect(pools.find((view) => view.pool === 'a')).toMatchObject({ pool: 'a', workers: 1, slots: 4, backlog: { commands: 0, frames: 0 } });
    expect(pools.find((view) => view.pool === null)).toMatchObject({ pool: null, workers: 1 });
    const metrics = await scheduler.metrics.registry.getSingleMetricAsString('noetl_command_backlog_total');
    expect(metrics).toContain('noetl_command_backlog_total{pool="b"} 1');

    const controlPlane = scheduler.own.controlPlane;
    await expect(controlPlane.claim(issuedToB, { worker_id: 'intruder', pool: 'a' })).rejects.toMatchObject({
      code: 'wrong_pool',
      message: expect.stringContaining('is for pool "b"; worker intruder serves pool "a"'),
    });
    await expect(controlPlane.claim(issuedToB, { worker_id: 'plain' })).rejects.toMatchObject({ code: 'wrong_pool' });
    const [after] = await database.query<{ status: string }>('SELECT status FROM noetl.command WHERE command_id = $1', [issuedToB]);
    expect(after?.status).toBe('ISSUED');

    await start(['worker'], 'worker-b', 'b');
    const detail = await scheduler.waitForTerminal(executionId, { timeoutMs: 30_000 });
    expect(detail).toMatchObject({ status: 'COMPLETED', result: [10, 20, 30, 40, 50, 60] });

    const events = (
      await scheduler.own.executions.events(executionId, { type: [EventType.CommandClaimed, EventType.FrameDispatched], limit: 100 })
    ).events;
    const workerOf = (event: (typeof events)[number]): unknown => (isJsonObject(event.payload) ? event.payload['worker_id'] : undefined);
    const claimedBy = Object.fromEntries(
      events.filter((event) => event.event_type === EventType.CommandClaimed).map((event) => [event.step, workerOf(event)]),
    );
    expect(claimedBy).toEqual({ start: 'worker-a', on_b: 'worker-b', end: 'worker-a' });
    const frameWorkers = events.filter((event) => event.event_type === EventType.FrameDispatched).map(workerOf);
    expect(frameWorkers).toHaveLength(6);
    expect(new Set(frameWorkers)).toEqual(new Set(['worker-b']));
    expect((await scheduler.own.workers.pools()).find((view) => view.pool === 'b')).toMatchObject({
      workers: 1,
      backlog: { commands: 0, frames: 0 },
    });
  });

  it('refuses a frame claim from a worker of another pool', async () => {
    await scheduler.own.catalog.register(PLAYBOOK('tests/pools-frames', 'a', 'c'));
    const { execution_id: executionId } = await scheduler.own.executions.start({ path: 'tests/pools-frames' });
    const stageId = await waitFor(async () => {
      const opened = (await scheduler.own.executions.events(executionId, { type: [EventType.StageOpened] })).events;
      const payload = opened[0]?.payload;
      return isJsonObject(payload) && typeof payload['stage_id'] === 'string' ? payload['stage_id'] : undefined;
    });
    await waitFor(async () => (await scheduler.own.workers.pools()).find((view) => view.pool === 'c')?.backlog.frames === 6 || undefined);
    await expect(scheduler.own.controlPlane.claimFrame(stageId, { worker_id: 'intruder', pool: 'a' })).rejects.toMatchObject({
      code: 'wrong_pool',
    });
    await expect(scheduler.own.controlPlane.claimFrame(stageId, { worker_id: 'plain' })).rejects.toMatchObject({ code: 'wrong_pool' });
    await expect(scheduler.own.controlPlane.claimFrame(stageId, { worker_id: 'of-c', pool: 'c' })).resolves.toMatchObject({
      stage_id: stageId,
      frame_index: 0,
    });
    await scheduler.own.executions.cancel(executionId, {});
  });
});
