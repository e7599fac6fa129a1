import { Client } from 'pg';
import request from 'supertest';
import { noopPlaybook, startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

const LIMIT = 4096;
const TOO_LARGE = {
  code: 'payload_too_large',
  message: `the request body is over the input limit of ${LIMIT} bytes (NOETL_MAX_INPUT_BYTES); nothing was written`,
};

/**
 * NOETL_MAX_INPUT_BYTES (issue 25 item 7): an execution's, a signal's or a
 * schedule's payload over the limit is refused with 413 before it is parsed,
 * and nothing of it reaches the append-only ledger. Worker reports keep their
 * own, larger limit.
 */
describe('the input limit', () => {
  let api: ApiTestApp;
  const big = { blob: 'x'.repeat(LIMIT) };
  const eventCount = async () => {
    const client = new Client({ connectionString: api.config.database.url!.reveal() });
    await client.connect();
    try {
      return Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM noetl.event')).rows[0]!.n);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api', NOETL_MAX_INPUT_BYTES: String(LIMIT) });
    await request(api.http)
      .post('/api/catalog/register')
      .send({ content: noopPlaybook('limits/one', ['a']) })
      .expect(201);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('refuses an execution, a signal and a schedule whose body is over it, writing nothing', async () => {
    const started = await request(api.http)
      .post('/api/execute')
      .send({ path: 'limits/one', payload: { small: 1 } })
      .expect(201);
    const before = await eventCount();
    const id: string = started.body.execution_id;
    for (const [path, body] of [
      ['/api/execute', { path: 'limits/one', payload: big }],
      [`/api/executions/${id}/signals/go`, { payload: big }],
      ['/api/schedules', { path: 'limits/one', interval_seconds: 60, payload: big }],
    ] as const) {
      const refused = await request(api.http).post(path).send(body);
      expect({ path, status: refused.status, body: refused.body }).toEqual({ path, status: 413, body: TOO_LARGE });
    }
    expect(await eventCount()).toBe(before);
    expect((await request(api.http).get('/api/schedules').expect(200)).body.schedules).toEqual([]);
  });

  it('takes a payload just under it', async () => {
    await request(api.http)
      .post('/api/execute')
      .send({ path: 'limits/one', payload: { blob: 'x'.repeat(LIMIT - 200) } })
      .expect(201);
  });
});
