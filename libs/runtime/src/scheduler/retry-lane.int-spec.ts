import { EventType } from '@noetl/event-kernel';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../../../../test/support/scripted-http-server';
import { requireRedis } from '../../../../test/support/services';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';
import { RetryLane, TIMER_QUEUE } from './retry-lane';

const SCOPE = { tenantId: 'lane-tenant', organizationId: 'lane-org' };

// Its own Redis database, so FLUSHDB here never touches another suite's keys; a prefix per run on top.
const LANE_DB = 5;
const RUN = randomUUID().slice(0, 8);

/** One http call that fails its first attempt; the retry waits `delay` seconds on a durable timer. */
const retrying = (delay: number): string => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: lane-retry, path: tests/lane-retry}
workload: {url: ""}
workflow:
  - step: start
    tool: {kind: http, url: "{{ url }}"}
    retry:
      - when: "{{ true }}"
        then: {max_attempts: 2, initial_delay: ${delay}, backoff: fixed, jitter: false}
`;

describe('RetryLane', () => {
  let redisUrl: string;
  let http: ScriptedHttpServer;

  beforeAll(async () => {
    const url = new URL(await requireRedis());
    url.pathname = `/${LANE_DB}`;
    redisUrl = url.toString();
    http = await startScriptedHttpServer();
  });
  afterAll(async () => http?.close());

  /** An engine (scheduler + worker) on a database of its own, so its lane has its own key prefix (the engine derives it from the ledger database). */
  function engineWithLane(name: string, sweepMs: number): Promise<TestEngine> {
    return startTestEngine({ env: { REDIS_URL: redisUrl, NOETL_TENANT_ID: `lane-${RUN}-${name}`, NOETL_SWEEP_MS: String(sweepMs) } });
  }

  async function runRetrying(t: TestEngine, key: string): Promise<string> {
    const { execution_id } = await t.engine.own.executions.start({
      path: 'tests/lane-retry',
      payload: { url: `${http.url}/fail-first/${key}?times=1` },
    });
    return execution_id;
  }

  async function timersFired(t: TestEngine, executionId: string): Promise<number> {
    return (await t.engine.own.executions.events(executionId, { type: [EventType.TimerFired] })).events.length;
  }

  describe('in the engine, with the sweep out of the way', () => {
    let t: TestEngine;
    beforeAll(async () => {
      // Ten minutes between sweeps, and no local wake-up with a lane: only the lane can fire the timer in time.
      t = await engineWithLane('alone', 600_000);
      await t.engine.own.catalog.register(retrying(0.5));
    });
    afterAll(async () => t?.close());

    it('fires a retry timer, once', async () => {
      const executionId = await runRetrying(t, `alone-${RUN}`);
      const detail = await t.engine.waitForTerminal(executionId, { timeoutMs: 20_000 });
      expect(detail.status).toBe('COMPLETED');
      expect(http.calls(`alone-${RUN}`)).toBe(2);
      expect(await timersFired(t, executionId)).toBe(1);
    });
  });

  describe('in the engine, with the sweep running', () => {
    let t: TestEngine;
    beforeAll(async () => {
      t = await engineWithLane('swept', 200);
      await t.engine.own.catalog.register(retrying(2));
    });
    afterAll(async () => t?.close());

    it('still fires a pending retry once when Redis is flushed', async () => {
      const key = `flushed-${RUN}`;
      const executionId = await runRetrying(t, key);
      const inspector = new Queue(TIMER_QUEUE, { connection: { url: redisUrl }, prefix: `noetl.${t.testDatabase.name}` });
      const redis = new IORedis(redisUrl);
      try {
        await waitFor(async () => (await inspector.getDelayedCount()) === 1, { description: 'the delayed job of the retry' });
        await redis.flushdb();
        expect(await inspector.getDelayedCount()).toBe(0);
      } finally {
        await inspector.close();
        redis.disconnect();
      }
      // The premise: the job was gone before the timer fired.
      const [timer] = await t.database.query<{ fired_at: Date | null }>(
        'SELECT fired_at FROM noetl.timer WHERE execution_id = $1::bigint',
        [executionId],
      );
      expect(timer?.fired_at).toBeNull();
      const detail = await t.engine.waitForTerminal(executionId, { timeoutMs: 20_000 });
      expect(detail.status).toBe('COMPLETED');
      expect(http.calls(key)).toBe(2);
      expect(await timersFired(t, executionId)).toBe(1);
    });
  });

  describe('in the engine, racing the sweep', () => {
    let t: TestEngine;
    beforeAll(async () => {
      t = await engineWithLane('raced', 100);
      await t.engine.own.catalog.register(retrying(0.5));
    });
    afterAll(async () => t?.close());

    it('fires each timer once when the lane and sweeps take it at the same time', async () => {
      const keys = [1, 2, 3].map((n) => `raced-${n}-${RUN}`);
      const executionIds = await Promise.all(keys.map((key) => runRetrying(t, key)));
      const ended = Promise.all(executionIds.map((id) => t.engine.waitForTerminal(id, { timeoutMs: 20_000 })));
      // Sweeps back to back while the jobs come due, on top of the periodic one.
      let done = false;
      const sweeping = (async () => {
        while (!done) await t.engine.sweep();
      })();
      const details = await ended.finally(() => (done = true));
      await sweeping;
      expect(details.map((detail) => detail.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
      for (const executionId of executionIds) expect(await timersFired(t, executionId)).toBe(1);
    });
  });

  describe('on its own', () => {
    let lane: RetryLane | undefined;
    let inspector: Queue | undefined;
    afterEach(async () => {
      await lane?.close();
      await inspector?.obliterate({ force: true });
      await inspector?.close();
      lane = inspector = undefined;
    });

    it('adds one job for a timer scheduled twice', async () => {
      const options = { queueName: `dedupe-${RUN}`, prefix: `lane-${RUN}` };
      lane = await RetryLane.open(redisUrl, options);
      inspector = new Queue(options.queueName, { connection: { url: redisUrl }, prefix: options.prefix });
      const dueAt = new Date(Date.now() + 60_000);
      await lane.schedule('7300000000000000001', dueAt, SCOPE);
      await lane.schedule('7300000000000000001', dueAt, SCOPE);
      await lane.schedule('7300000000000000002', dueAt, SCOPE);
      expect(await inspector.getDelayedCount()).toBe(2);
    });

    it('runs a job again after its handler rejects', async () => {
      const options = { queueName: `again-${RUN}`, prefix: `lane-${RUN}` };
      lane = await RetryLane.open(redisUrl, options);
      inspector = new Queue(options.queueName, { connection: { url: redisUrl }, prefix: options.prefix });
      const calls: string[] = [];
      lane.start(async (timerId, scope) => {
        calls.push(`${timerId}@${scope.tenantId}/${scope.organizationId}`);
        if (calls.length === 1) throw new Error('the database is away');
      });
      await lane.schedule('7300000000000000003', new Date(), SCOPE);
      await waitFor(async () => calls.length === 2, { description: 'the second run of the job' });
      expect(calls).toEqual(['7300000000000000003@lane-tenant/lane-org', '7300000000000000003@lane-tenant/lane-org']);
    });

    it('opens, schedules and closes without throwing when Redis is down', async () => {
      const port = await closedPort();
      lane = await RetryLane.open(`redis://127.0.0.1:${port}`, { queueName: `down-${RUN}` });
      lane.start(() => Promise.resolve());
      await expect(lane.schedule('7300000000000000004', new Date(), SCOPE)).resolves.toBeUndefined();
      await lane.close();
      lane = undefined;
    });
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
