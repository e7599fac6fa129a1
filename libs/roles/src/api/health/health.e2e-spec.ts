import { createServer, type Server } from 'node:net';
import request from 'supertest';
import { requireNats, requireRedis } from '../../../../../test/support/services';
import { startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

describe('readiness with Redis and NATS configured', () => {
  let api: ApiTestApp | undefined;

  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('checks the database, Redis and NATS', async () => {
    api = await startApiTestApp({ REDIS_URL: await requireRedis(), NATS_URL: await requireNats() });
    const ready = await request(api.http).get('/health/ready').expect(200);
    expect(ready.body.details).toEqual({ database: { status: 'up' }, redis: { status: 'up' }, nats: { status: 'up' } });
  });

  it('is not ready while Redis does not answer, and says why', async () => {
    // A port that accepts connections and never answers: the indicator's deadline, not a refusal, decides.
    const silent = await listenSilently();
    try {
      const { port } = silent.address() as { port: number };
      api = await startApiTestApp({ REDIS_URL: `redis://127.0.0.1:${port}` });
      const ready = await request(api.http).get('/health/ready').expect(503);
      expect(ready.body).toEqual({
        code: 'not_ready',
        message: 'not ready: redis down',
        details: { database: { status: 'up' }, redis: { status: 'down', message: expect.stringContaining('no answer within') } },
      });
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

function listenSilently(): Promise<Server> {
  // Reads and drops what it gets: an unread socket would never see the client's close.
  const server = createServer((socket) => socket.on('error', () => undefined).resume());
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
