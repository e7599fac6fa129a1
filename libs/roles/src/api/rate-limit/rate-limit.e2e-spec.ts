import request from 'supertest';
import { startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

/**
 * Issue 11 item 6: the public API is rate limited per client (today its
 * address; see throttle-key.ts), 429 with Retry-After and the one error body
 * past the limit; the probes and the workers' control plane are not.
 */
describe('rate limits', () => {
  let t: ApiTestApp;

  beforeAll(async () => {
    t = await startApiTestApp({ NOETL_RATE_LIMIT: '5', NOETL_RATE_LIMIT_WINDOW_SECONDS: '60' });
  });
  afterAll(async () => t?.close());

  it('answers the request past the limit 429 with Retry-After, and leaves probes and the control plane alone', async () => {
    for (let i = 0; i < 5; i++) expect((await request(t.http).get('/api/catalog')).status).toBe(200);
    const limited = await request(t.http).get('/api/executions');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toEqual({ code: 'rate_limited', message: expect.any(String) });
    expect((await request(t.http).get('/health/live')).status).toBe(200);
    // A worker's heartbeat for a command nobody holds: refused for what it is, not for the rate.
    const control = await request(t.http).post('/api/commands/1/heartbeat').send({ worker_id: 'w', lease_token: 't' });
    expect(control.status).toBe(404);
  });
});
