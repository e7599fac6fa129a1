import { loadConfig } from '@noetl/config';
import { SnowflakeIds } from '@noetl/event-kernel';
import { Engine, Ledger, RuntimeMetrics, ScheduleTicker, type ExecutionDetail } from '@noetl/runtime';
import { Database, PgEventStore, ScheduleRepository } from '@noetl/storage';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { TEST_ENCRYPTION_KEY } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';

// Tests wait up to 10 s for an execution to end (waitForTerminal), which jest's 5 s default cut short.
jest.setTimeout(30_000);

const playbook = (path: string, tool: string, metadata = ''): string => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: ${path.replace('/', '_')}, path: ${path}${metadata}}
workflow:
  - step: start
    tool: ${tool}
`;

const NOOP = playbook('ticks/noop', '{kind: noop}');
const PARKED = playbook('ticks/parked', '{kind: wait, signal: release}');

/**
 * The schedule ticker against real PostgreSQL, on a clock of its own: the
 * engine's sweep fires no schedule here (`schedules: false`), the spec moves
 * the clock and calls the tickers, which stand for schedulers racing.
 */
describe('ScheduleTicker', () => {
  let testDatabase: TestDatabase;
  let database: Database;
  let engine: Engine;
  let clock: Date;
  let ledger: Ledger;
  const ticker = (): ScheduleTicker =>
    new ScheduleTicker({
      db: database,
      ledger,
      rows: new ScheduleRepository(),
      executions: engine.own.executions,
      logger: pino({ level: 'silent' }),
      now: () => clock,
    });

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    const config = loadConfig({
      DATABASE_URL: testDatabase.url,
      LOG_LEVEL: 'silent',
      NOETL_SWEEP_MS: '100',
      NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    });
    database = await Database.connect(testDatabase.url);
    engine = await Engine.start({ config, database, roles: ['scheduler', 'worker'], schedules: false });
    ledger = new Ledger(
      new PgEventStore(database),
      new SnowflakeIds(1023, () => Date.now()),
      config.tenancy,
      'ticker-spec',
      new RuntimeMetrics(),
    );
    await engine.own.catalog.register(NOOP);
    await engine.own.catalog.register(PARKED);
  });

  afterAll(async () => {
    await engine?.stop();
    await database?.close();
    await testDatabase?.drop();
  });

  /** The executions of `path` with the fire time that started each. */
  async function fires(path: string): Promise<ExecutionDetail[]> {
    const { executions } = await engine.own.executions.list({ path, limit: 1000 });
    const details = await Promise.all(executions.map((e) => engine.own.executions.get(e.execution_id)));
    return details.sort((a, b) => (a.schedule?.fire_time ?? '').localeCompare(b.schedule?.fire_time ?? ''));
  }

  const at = (from: string, seconds: number): Date => new Date(Date.parse(from) + seconds * 1000);

  it('starts each fire time exactly once while two schedulers race for every pass', async () => {
    const schedule = await engine.own.schedules.create({ path: 'ticks/noop', interval_seconds: 10, overlap: 'allow' });
    const first = schedule.next_fire_time!;
    const [a, b] = [ticker(), ticker()];
    for (let k = 0; k < 8; k += 1) {
      clock = at(first, k * 10 + 0.5);
      await Promise.all([a.fireDue(), b.fireDue(), a.fireDue()]);
    }
    const started = await fires('ticks/noop');
    const fireTimes = started.map((detail) => detail.schedule?.fire_time);
    expect(fireTimes).toEqual(Array.from({ length: 8 }, (_, k) => at(first, k * 10).toISOString()));
    expect(started.every((detail) => detail.schedule?.schedule_id === schedule.schedule_id && !detail.schedule.manual)).toBe(true);
    expect(await engine.own.schedules.get(schedule.schedule_id)).toMatchObject({
      fired: 8,
      skipped: 0,
      next_fire_time: at(first, 80).toISOString(),
    });
    await engine.own.schedules.delete(schedule.schedule_id);
  });

  it('skips fire times while the execution it started still runs (skip), and fires again once it ended', async () => {
    const schedule = await engine.own.schedules.create({ path: 'ticks/parked', interval_seconds: 10 });
    const first = schedule.next_fire_time!;
    const tick = ticker();
    clock = at(first, 0);
    expect(await tick.fireDue()).toBe(1);
    clock = at(first, 10);
    expect(await tick.fireDue()).toBe(0);
    clock = at(first, 20);
    expect(await tick.fireDue()).toBe(0);
    const [running] = await fires('ticks/parked');
    expect(await engine.own.schedules.get(schedule.schedule_id)).toMatchObject({
      fired: 1,
      skipped: 2,
      last_execution_id: running!.execution_id,
    });

    await engine.own.executions.signal(running!.execution_id, 'release', {});
    await engine.waitForTerminal(running!.execution_id, { timeoutMs: 10_000 });
    clock = at(first, 30);
    expect(await tick.fireDue()).toBe(1);
    expect((await fires('ticks/parked')).map((d) => d.schedule?.fire_time)).toEqual([
      at(first, 0).toISOString(),
      at(first, 30).toISOString(),
    ]);
    await engine.own.schedules.delete(schedule.schedule_id);
    await cancelRunning('ticks/parked');
  });

  it('holds one fire time while the execution runs (buffer_one) and starts it once that execution ended', async () => {
    const schedule = await engine.own.schedules.create({ path: 'ticks/parked', interval_seconds: 10, overlap: 'buffer_one' });
    const first = schedule.next_fire_time!;
    const tick = ticker();
    clock = at(first, 0);
    await tick.fireDue();
    clock = at(first, 20);
    expect(await tick.fireDue()).toBe(0);
    expect(await engine.own.schedules.get(schedule.schedule_id)).toMatchObject({
      buffered_fire_time: at(first, 10).toISOString(),
      skipped: 1,
    });

    const running = (await fires('ticks/parked')).find((d) => d.status === 'RUNNING')!;
    await engine.own.executions.signal(running.execution_id, 'release', {});
    await engine.waitForTerminal(running.execution_id, { timeoutMs: 10_000 });
    clock = at(first, 21);
    expect(await tick.fireDue()).toBe(1);
    const mine = (await fires('ticks/parked')).filter((d) => d.schedule?.schedule_id === schedule.schedule_id);
    expect(mine.map((d) => d.schedule?.fire_time)).toEqual([at(first, 0).toISOString(), at(first, 10).toISOString()]);
    expect(await engine.own.schedules.get(schedule.schedule_id)).toMatchObject({ buffered_fire_time: null, fired: 2 });
    await engine.own.schedules.delete(schedule.schedule_id);
    await cancelRunning('ticks/parked');
  });

  it('after an outage starts only the fire times inside the catch-up window and records the last one missed', async () => {
    const schedule = await engine.own.schedules.create({ path: 'ticks/noop', interval_seconds: 10, overlap: 'allow', catchup_seconds: 30 });
    const first = schedule.next_fire_time!;
    const before = (await fires('ticks/noop')).length;
    clock = at(first, 3600);
    expect(await ticker().fireDue()).toBe(4);
    const started = (await fires('ticks/noop')).filter((d) => d.schedule?.schedule_id === schedule.schedule_id);
    expect(started.map((d) => d.schedule?.fire_time)).toEqual([3570, 3580, 3590, 3600].map((s) => at(first, s).toISOString()));
    expect((await fires('ticks/noop')).length).toBe(before + 4);
    expect(await engine.own.schedules.get(schedule.schedule_id)).toMatchObject({
      last_missed_time: at(first, 3560).toISOString(),
      next_fire_time: at(first, 3610).toISOString(),
    });
    await engine.own.schedules.delete(schedule.schedule_id);
  });

  it('fires nothing while paused, and resumes at the next fire time without catching up the pause', async () => {
    const schedule = await engine.own.schedules.create({ path: 'ticks/noop', interval_seconds: 10, overlap: 'allow', paused: true });
    expect(schedule).toMatchObject({ paused: true, next_fire_time: null });
    clock = new Date(Date.now() + 3600_000);
    expect(await ticker().fireDue()).toBe(0);
    const resumed = await engine.own.schedules.update(schedule.schedule_id, { paused: false });
    expect(Date.parse(resumed.next_fire_time!)).toBeLessThanOrEqual(Date.now() + 10_000);
    expect(await engine.own.schedules.get(schedule.schedule_id)).toMatchObject({ fired: 0 });
    await engine.own.schedules.delete(schedule.schedule_id);
  });

  it('starts a manual trigger now, marked manual, paused or not', async () => {
    const schedule = await engine.own.schedules.create({
      path: 'ticks/noop',
      cron: '0 3 * * *',
      timezone: 'Asia/Tokyo',
      paused: true,
      payload: { from: 'schedule' },
    });
    const triggered = await engine.own.schedules.trigger(schedule.schedule_id);
    const detail = await engine.waitForTerminal(triggered.execution_id, { timeoutMs: 10_000 });
    expect(detail).toMatchObject({
      status: 'COMPLETED',
      workload: { from: 'schedule' },
      schedule: { schedule_id: schedule.schedule_id, fire_time: triggered.fire_time, manual: true },
    });
    expect(await engine.own.schedules.get(schedule.schedule_id)).toMatchObject({
      fired: 1,
      last_execution_id: triggered.execution_id,
      paused: true,
    });
    await engine.own.schedules.delete(schedule.schedule_id);
  });

  it("applies a playbook's metadata.schedule at registration: created, rewritten by a new version, deleted by one without it", async () => {
    const declaring = (cron: string) => playbook('ticks/declared', '{kind: noop}', `, schedule: {cron: "${cron}", overlap: allow}`);
    await engine.own.catalog.register(declaring('0 * * * *'));
    const [created] = (await engine.own.schedules.list({ path: 'ticks/declared' })).schedules;
    expect(created).toMatchObject({
      source: 'playbook',
      cron: '0 * * * *',
      timezone: 'UTC',
      overlap: 'allow',
      version: null,
      paused: false,
    });

    await engine.own.schedules.update(created!.schedule_id, { paused: true });
    await engine.own.catalog.register(declaring('30 * * * *'));
    expect((await engine.own.schedules.list({ path: 'ticks/declared' })).schedules).toEqual([
      expect.objectContaining({ schedule_id: created!.schedule_id, cron: '30 * * * *', paused: true }),
    ]);

    await engine.own.catalog.register(playbook('ticks/declared', '{kind: noop}'));
    expect((await engine.own.schedules.list({ path: 'ticks/declared' })).schedules).toEqual([]);
    await engine.own.catalog.register(declaring('15 * * * *'), { schedule: false });
    expect((await engine.own.schedules.list({ path: 'ticks/declared' })).schedules).toEqual([]);
  });

  it('applies the schedule of content first registered without it (noetl run), when it is registered again unchanged', async () => {
    const content = playbook('ticks/run-first', '{kind: noop}', ', schedule: {interval_seconds: 3600}');
    const first = await engine.own.catalog.register(content, { schedule: false });
    expect((await engine.own.schedules.list({ path: 'ticks/run-first' })).schedules).toEqual([]);
    expect(await engine.own.catalog.register(content)).toEqual(first);
    const [declared] = (await engine.own.schedules.list({ path: 'ticks/run-first' })).schedules;
    expect(declared).toMatchObject({ source: 'playbook', interval_seconds: 3600 });
    // Registering it once more rewrites the same schedule: its next fire time stays.
    await engine.own.catalog.register(content);
    expect((await engine.own.schedules.list({ path: 'ticks/run-first' })).schedules).toEqual([
      { ...declared, updated_at: expect.any(String) },
    ]);
  });

  it('rejects a schedule of an unknown playbook or with bad fields, listing every problem', async () => {
    await expect(engine.own.schedules.create({ path: 'ticks/missing', interval_seconds: 10 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      engine.own.schedules.create({ path: 'ticks/noop', cron: '* * *', interval_seconds: 0, timezone: 'Nowhere/Land' }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: 'interval_seconds', message: 'give exactly one of "cron" and "interval_seconds"' }],
    });
    await expect(engine.own.schedules.get('999')).rejects.toMatchObject({ code: 'not_found' });
  });

  async function cancelRunning(path: string): Promise<void> {
    for (const detail of await fires(path)) {
      if (detail.status === 'RUNNING') await engine.own.executions.cancel(detail.execution_id, {});
    }
    await waitFor(async () => (await fires(path)).every((d) => d.status !== 'RUNNING'), {
      timeoutMs: 10_000,
      description: `no ${path} execution running`,
    });
  }
});
