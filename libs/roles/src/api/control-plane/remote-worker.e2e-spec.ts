import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@noetl/config';
import { AppRootModule, QueueGroupNatsServer } from '@noetl/platform';
import { RuntimeMetrics } from '@noetl/runtime';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { requireNats } from '../../../../../test/support/services';
import { waitFor } from '../../../../../test/support/wait-for';
import { WorkerModule } from '../../worker/worker.module';
import { startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

const PLAYBOOK = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: remote, path: tests/remote-worker}
workload: {n: 20}
workflow:
  - step: start
    tool: {kind: javascript, code: "return {doubled: input.n * 2}", input: {n: "{{ n }}"}}
    next: [{step: end}]
  - step: end
    tool: {kind: javascript, code: "return {total: input.d + 2}", input: {d: "{{ start.doubled }}"}}
`;

/** One step for the gpu pool's workers only. */
const POOLED = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: pooled, path: tests/remote-worker-pool}
workflow:
  - step: start
    tool: {kind: javascript, code: "return {on: 'gpu'}", pool: gpu}
`;

/** How many commands a worker app ran. */
async function ran(app: INestMicroservice): Promise<number> {
  const values = (await app.get(RuntimeMetrics).stepDuration.get()).values;
  return values.find((value) => value.metricName?.endsWith('_count'))?.value ?? 0;
}

/**
 * The microservice shape of DESIGN.md s3: the api + scheduler in one app, the
 * worker app (its Nest microservice, as `apps/worker` boots its role module) in another,
 * knowing only the API's URL and NATS. Work offers travel over NATS through
 * the worker's @OnNotification handlers; claims and reports over HTTP.
 */
describe('a worker on the HTTP control plane, over NATS', () => {
  let api: ApiTestApp;
  let worker: INestMicroservice;
  /** A worker of pool gpu (NOETL_WORKER_POOL): it takes only gpu's work, the other none of it. */
  let gpuWorker: INestMicroservice;

  beforeAll(async () => {
    const nats = await requireNats();
    // A tenant of its own keeps this suite's NATS subjects apart from any other run.
    const tenant = `t${randomBytes(4).toString('hex')}`;
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler', NATS_URL: nats, NOETL_TENANT_ID: tenant, NOETL_SWEEP_MS: '200' });
    await api.app.listen(0, '127.0.0.1');
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    const startWorker = async (env: Record<string, string> = {}): Promise<INestMicroservice> => {
      const config = loadConfig({
        DATABASE_URL: api.config.database.url!.reveal(),
        NATS_URL: nats,
        NOETL_TENANT_ID: tenant,
        NOETL_ROLES: 'worker',
        NOETL_SERVER_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: 'silent',
        ...env,
      });
      const app = await NestFactory.createMicroservice(
        AppRootModule.forRoot(config, (loaded, workerId) => [WorkerModule.forRoot(loaded, workerId)]),
        {
          strategy: new QueueGroupNatsServer({ servers: [nats] }),
          logger: false,
        },
      );
      await app.listen();
      return app;
    };
    worker = await startWorker();
    gpuWorker = await startWorker({ NOETL_WORKER_POOL: 'gpu' });
  });

  afterAll(async () => {
    await gpuWorker?.close();
    await worker?.close();
    await api?.close();
  });

  it('runs a playbook end to end with the worker in the other engine', async () => {
    await request(api.http).post('/api/catalog/register').send({ content: PLAYBOOK }).expect(201);
    const { body } = await request(api.http).post('/api/execute').send({ path: 'tests/remote-worker' }).expect(201);
    const detail = await waitFor(
      async () => {
        const { body: current } = await request(api.http).get(`/api/executions/${body.execution_id}`).expect(200);
        return current.status === 'RUNNING' ? undefined : current;
      },
      { timeoutMs: 20_000 },
    );
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { total: 42 } });
    // The api process runs no worker: both commands were run by the remote one, none by the gpu pool's.
    expect(await ran(worker)).toBe(2);
    expect(await ran(gpuWorker)).toBe(0);
  });

  it("runs a step of a pool on that pool's worker only, its claim naming the pool over HTTP", async () => {
    await request(api.http).post('/api/catalog/register').send({ content: POOLED }).expect(201);
    const { body } = await request(api.http).post('/api/execute').send({ path: 'tests/remote-worker-pool' }).expect(201);
    const detail = await waitFor(
      async () => {
        const { body: current } = await request(api.http).get(`/api/executions/${body.execution_id}`).expect(200);
        return current.status === 'RUNNING' ? undefined : current;
      },
      { timeoutMs: 20_000 },
    );
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { on: 'gpu' } });
    expect(await ran(gpuWorker)).toBe(1);
    expect(await ran(worker)).toBe(2);
    const { body: listed } = await request(api.http).get('/api/workers').expect(200);
    expect(listed.pools).toEqual(
      expect.arrayContaining([expect.objectContaining({ pool: 'gpu', workers: 1 }), expect.objectContaining({ pool: null, workers: 1 })]),
    );
  });
});
