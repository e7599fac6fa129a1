import { startTestServer, type TestServer } from './server';
import { fetchJson, postJson } from './testing/fetch-json';

type Stats = { started: number; completed: number; active: number; max_active: number; recent_events: Record<string, unknown>[] };
type Probe = Record<string, number | string>;

describe('concurrency probe (TEST_SERVER.md §2)', () => {
  let server: TestServer;
  const call = <T>(path: string) => fetchJson<T>(server.url + path).then((res) => res.body);

  beforeAll(async () => {
    server = await startTestServer({ env: { CONCURRENCY_PROBE_MAX_EVENTS: 6 } });
  });
  afterAll(() => server.close());
  beforeEach(() => postJson(`${server.url}/api/v1/concurrency/reset`));

  it('resets counters and the event buffer', async () => {
    await call('/api/v1/concurrency/probe');
    const reset = await postJson(`${server.url}/api/v1/concurrency/reset`);
    expect([reset.status, reset.body]).toEqual([200, { status: 'reset' }]);
    expect(await call('/api/v1/concurrency/stats')).toEqual({ started: 0, completed: 0, active: 0, max_active: 0, recent_events: [] });
  });

  it('answers a probe with its id, label and the counters after it finished', async () => {
    const probe = await call<Probe>('/api/v1/concurrency/probe?label=pagination-basic');
    expect(probe).toEqual({
      request_id: 1,
      label: 'pagination-basic',
      delay_seconds: 0,
      duration_seconds: expect.any(Number),
      active_at_start: 1,
      started: 1,
      completed: 1,
      active: 0,
      max_active: 1,
    });
    expect((await call<Probe>('/api/v1/concurrency/probe')).label).toBe('probe');
  });

  it('sleeps without blocking: overlapping probes see each other and other requests answer meanwhile', async () => {
    const answered: string[] = [];
    const slow = call<Probe>('/api/v1/concurrency/probe?delay_seconds=1&label=slow').finally(() => answered.push('slow'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const fast = await call<Probe>('/api/v1/concurrency/probe?label=fast').finally(() => answered.push('fast'));
    const health = await call('/health').finally(() => answered.push('health'));
    expect(fast).toEqual(expect.objectContaining({ request_id: 2, active_at_start: 2, active: 1, max_active: 2, completed: 1 }));
    expect(health).toEqual({ status: 'ok' });

    const slowDone = await slow;
    // The others were answered while the slow probe slept (a 1 s margin, whatever the machine's load).
    expect(answered).toEqual(['fast', 'health', 'slow']);
    expect(slowDone).toEqual(
      expect.objectContaining({ request_id: 1, delay_seconds: 1, active_at_start: 1, started: 2, completed: 2, active: 0, max_active: 2 }),
    );
    expect(slowDone.duration_seconds).toBeGreaterThanOrEqual(0.99);
  });

  it('records start and end events in order, keeping only the newest CONCURRENCY_PROBE_MAX_EVENTS', async () => {
    await call('/api/v1/concurrency/probe?label=a&delay_seconds=0.01');
    let stats = await call<Stats>('/api/v1/concurrency/stats');
    expect(stats.recent_events).toEqual([
      { phase: 'start', request_id: 1, label: 'a', delay_seconds: 0.01, ts: expect.any(Number), active: 1 },
      { phase: 'end', request_id: 1, label: 'a', duration_seconds: expect.any(Number), ts: expect.any(Number), active: 0 },
    ]);
    const [start, end] = stats.recent_events as { ts: number }[];
    expect(Math.abs(start!.ts - Date.now() / 1000)).toBeLessThan(5);
    expect(end!.ts).toBeGreaterThanOrEqual(start!.ts);

    for (const label of ['b', 'c', 'd']) await call(`/api/v1/concurrency/probe?label=${label}`);
    stats = await call<Stats>('/api/v1/concurrency/stats');
    expect(stats.recent_events.map((e) => `${e.phase}:${e.label}`)).toEqual(['start:b', 'end:b', 'start:c', 'end:c', 'start:d', 'end:d']);
    expect([stats.started, stats.completed, stats.active, stats.max_active]).toEqual([4, 4, 0, 1]);
  });
});
