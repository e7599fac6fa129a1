import { EventType } from '@noetl/event-kernel';
import type { ExecutionDetail } from '@noetl/runtime';
import supertest from 'supertest';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { e2ePlaybook, startE2eApp, type E2eApp } from '../support/e2e-app';
import { ofType } from '../support/ledger-checks';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

// Four server boots and a schedule that fires every second for a while.
jest.setTimeout(120_000);

/** How many executions each fire time started. */
function perFireTime(executions: ExecutionDetail[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const detail of executions) {
    const fireTime = detail.schedule?.fire_time ?? 'none';
    counts.set(fireTime, (counts.get(fireTime) ?? 0) + 1);
  }
  return counts;
}

describe('a schedule across two servers on one database', () => {
  let database: TestDatabase;
  const servers: CliServerProcess[] = [];

  const boot = async (): Promise<CliServerProcess> => {
    const server = await startCliServer({ DATABASE_URL: database.url, NOETL_SWEEP_MS: '200', LOG_LEVEL: 'warn' });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
  });

  it('fires every second exactly once per fire time, through a SIGKILL and a restart of each server', async () => {
    let [a, b] = await Promise.all([boot(), boot()]);
    const client = (server: CliServerProcess): NoetlHttpClient => new NoetlHttpClient(server.url, server.apiKey);
    await client(a!).register(e2ePlaybook('scheduled-noop'));
    const schedule = await client(a!).createSchedule({ path: 'e2e/scheduled_noop', interval_seconds: 1, overlap: 'allow' });
    const fired = async (atLeast: number, via: CliServerProcess): Promise<void> => {
      await waitFor(async () => (await client(via).schedule(schedule.schedule_id)).fired >= atLeast, {
        timeoutMs: 20_000,
        intervalMs: 100,
        description: `${atLeast} fires of schedule ${schedule.schedule_id}`,
      });
    };

    await fired(3, b!);
    await a!.crash();
    await fired(5, b!);
    a = await boot();
    await fired(7, a);
    await b!.crash();
    await fired(9, a);
    b = await boot();
    await fired(11, b);
    const paused = await client(b).updateSchedule(schedule.schedule_id, { paused: true });

    const executions = await client(b).executionsOf('e2e/scheduled_noop');
    const counts = perFireTime(executions);
    expect([...counts.values()].filter((count) => count !== 1)).toEqual([]);
    expect(executions.every((detail) => detail.schedule?.schedule_id === schedule.schedule_id && !detail.schedule.manual)).toBe(true);
    // Every second from the first fire time to the last started one execution: none missed, none twice.
    const times = [...counts.keys()].map((time) => Date.parse(time)).sort((x, y) => x - y);
    expect(times.map((time, i) => (i === 0 ? 1000 : time - times[i - 1]!))).toEqual(times.map(() => 1000));
    expect(executions.length).toBe(paused.fired);
    expect(executions.length).toBeGreaterThanOrEqual(11);
    for (const detail of executions.slice(0, 3)) {
      const events = await client(b).events(detail.execution_id, [EventType.ScheduleFired]);
      expect(events.map((e) => e.payload)).toEqual([{ schedule_id: schedule.schedule_id, fire_time: detail.schedule?.fire_time }]);
    }
  });
});

describe('schedules over the REST API', () => {
  let app: E2eApp;

  beforeAll(async () => {
    app = await startE2eApp();
    await app.client.register(e2ePlaybook('scheduled-noop'));
    await app.client.register(e2ePlaybook('scheduled-parked'));
  });

  afterAll(async () => {
    await app?.close();
  });

  it('skips fire times while the execution it started is still running (overlap skip)', async () => {
    const schedule = await app.client.createSchedule({ path: 'e2e/scheduled_parked', interval_seconds: 1, overlap: 'skip' });
    await waitFor(async () => (await app.client.schedule(schedule.schedule_id)).skipped >= 3, {
      timeoutMs: 15_000,
      description: 'three skipped fire times',
    });
    const [running, ...others] = await app.client.executionsOf('e2e/scheduled_parked');
    expect(others).toEqual([]);
    expect(running).toMatchObject({ status: 'RUNNING', schedule: { schedule_id: schedule.schedule_id } });

    await app.client.signal(running!.execution_id, 'release').expect(202);
    const ended = await app.client.waitForTerminal(running!.execution_id);
    const next = await waitFor(
      async () => (await app.client.executionsOf('e2e/scheduled_parked')).find((d) => d.execution_id !== running!.execution_id),
      {
        timeoutMs: 15_000,
        description: 'the next execution of the schedule',
      },
    );
    await app.client.updateSchedule(schedule.schedule_id, { paused: true });
    // The next run started at a fire time after the first one ended, never beside it.
    expect(Date.parse(next.schedule!.fire_time)).toBeGreaterThan(Date.parse(ended.completed_at!) - 1000);
    expect(Date.parse(next.schedule!.fire_time) - Date.parse(running!.schedule!.fire_time)).toBeGreaterThanOrEqual(4000);
    await app.client.signal(next.execution_id, 'release').expect(202);
  });

  it('fires nothing while paused, and fires again once resumed', async () => {
    await app.client.register(e2ePlaybook('scheduled-noop').replace(/scheduled_noop/g, 'scheduled_paused'));
    const paused = await app.client.createSchedule({ path: 'e2e/scheduled_paused', interval_seconds: 1, paused: true });
    const active = await app.client.createSchedule({ path: 'e2e/scheduled_noop', interval_seconds: 1 });
    expect(paused).toMatchObject({ paused: true, next_fire_time: null });
    await waitFor(async () => (await app.client.schedule(active.schedule_id)).fired >= 3, {
      timeoutMs: 15_000,
      description: 'three fires of the active schedule',
    });
    expect(await app.client.schedule(paused.schedule_id)).toMatchObject({ fired: 0, skipped: 0, last_execution_id: null });
    expect(await app.client.executionsOf('e2e/scheduled_paused')).toEqual([]);

    await app.client.updateSchedule(active.schedule_id, { paused: true });
    const resumed = await app.client.updateSchedule(paused.schedule_id, { paused: false });
    expect(resumed.next_fire_time).not.toBeNull();
    await waitFor(async () => (await app.client.executionsOf('e2e/scheduled_paused')).length >= 1, {
      timeoutMs: 15_000,
      description: 'a fire after resuming',
    });
    await app.client.updateSchedule(paused.schedule_id, { paused: true });
  });

  it('validates a schedule, answers 404s, triggers, lists and deletes', async () => {
    const http = app.http;
    const bad = await supertest(http)
      .post('/api/schedules')
      .send({ path: 'e2e/scheduled_noop', cron: '0 25 * * *', timezone: 'Mars/Base', overlap: 'skip' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'invalid_request',
      details: [expect.objectContaining({ path: 'cron' }), expect.objectContaining({ path: 'timezone' })],
    });
    expect(
      (await supertest(http).post('/api/schedules').send({ path: 'e2e/scheduled_noop', interval_seconds: 5, overlap: 'queue' })).status,
    ).toBe(400);
    expect((await supertest(http).post('/api/schedules').send({ path: 'e2e/nowhere', interval_seconds: 5 })).status).toBe(404);
    expect((await supertest(http).get('/api/schedules/424242')).status).toBe(404);

    const created = await app.client.createSchedule({
      path: 'e2e/scheduled_noop',
      cron: '0 3 * * 1',
      timezone: 'Europe/Berlin',
      payload: { who: 'cron' },
      paused: true,
    });
    expect(created).toMatchObject({
      source: 'api',
      cron: '0 3 * * 1',
      timezone: 'Europe/Berlin',
      overlap: 'skip',
      catchup_seconds: 60,
      jitter_seconds: 0,
      version: null,
    });
    const triggered = await supertest(http).post(`/api/schedules/${created.schedule_id}/trigger`).send({});
    expect(triggered.status).toBe(201);
    const detail = await app.client.waitForTerminal(triggered.body.execution_id);
    expect(detail).toMatchObject({
      status: 'COMPLETED',
      workload: { who: 'cron' },
      schedule: { schedule_id: created.schedule_id, manual: true },
    });
    const events = await app.client.events(detail.execution_id);
    expect(ofType(events, EventType.ScheduleFired).map((e) => e.payload)).toEqual([
      { schedule_id: created.schedule_id, fire_time: triggered.body.fire_time, manual: true },
    ]);

    const listed = await supertest(http).get('/api/schedules').query({ path: 'e2e/scheduled_noop' });
    expect(listed.body.schedules.map((s: { schedule_id: string }) => s.schedule_id)).toContain(created.schedule_id);
    const deleted = await supertest(http).delete(`/api/schedules/${created.schedule_id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ schedule_id: created.schedule_id, fired: 1 });
    expect((await supertest(http).get(`/api/schedules/${created.schedule_id}`)).status).toBe(404);
  });
});
