import { startTestServer, type TestServer } from './server';
import { fetchJson, postJson } from './testing/fetch-json';

type FlakyBody = {
  data: { id: number; value: string; rate_limited?: boolean }[];
  paging: Record<string, unknown>;
  rate_limit?: Record<string, number>;
};

describe('fault injection (TEST_SERVER.md §6)', () => {
  let server: TestServer;
  const call = <T = unknown>(path: string) => fetchJson<T>(server.url + path);
  const status = async (path: string) => (await call(path)).status;

  beforeAll(async () => {
    server = await startTestServer({ env: { ERRORS_TIMEOUT_SECONDS: 0.05 } });
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  describe('GET /api/v1/flaky', () => {
    it('serves fixed pages of 10 without a total', async () => {
      const res = await call<FlakyBody>('/api/v1/flaky?page=2');
      expect(res.body.data[0]).toEqual({ id: 11, value: 'item_11' });
      expect(res.body.paging).toEqual({ hasMore: true, page: 2, pageSize: 10 });
      const last = await call<FlakyBody>('/api/v1/flaky?page=4');
      expect(last.body.data.map((item) => item.id)).toEqual([31, 32, 33, 34, 35]);
      expect(last.body.paging.hasMore).toBe(false);
    });

    it('fails only the first request for a listed page since the last reset', async () => {
      expect(await status('/api/v1/flaky?page=1&fail_on=1')).toBe(500);
      expect(await status('/api/v1/flaky?page=1&fail_on=1')).toBe(200);
      expect(await status('/api/v1/flaky?page=1&fail_on=1')).toBe(200);
      await postJson(`${server.url}/api/v1/flaky/reset`);
      expect(await status('/api/v1/flaky?page=1&fail_on=1')).toBe(500);
    });

    it('counts every request for a page, whatever fail_on says', async () => {
      expect(await status('/api/v1/flaky?page=2')).toBe(200);
      expect(await status('/api/v1/flaky?page=2&fail_on=2')).toBe(200);
      expect(await status('/api/v1/flaky?page=3&fail_on=9')).toBe(200);
      expect(await status('/api/v1/flaky?page=3&fail_on=3')).toBe(200);
    });

    it('keys the counter by page only, so each listed page fails once (pagination/retry)', async () => {
      const statuses = [];
      for (const page of [1, 2, 2, 3, 4]) statuses.push(await status(`/api/v1/flaky?page=${page}&fail_on=2`));
      expect(statuses).toEqual([200, 500, 200, 200, 200]);
      expect(await status('/api/v1/flaky?page=3&fail_on=,%203,,')).toBe(200);
      expect(await status('/api/v1/flaky?page=5&fail_on=,%205,,')).toBe(500);
    });

    it('answers the reset with its fixed message and clears counters', async () => {
      await call('/api/v1/flaky?page=1');
      const res = await postJson(`${server.url}/api/v1/flaky/reset`);
      expect([res.status, res.body]).toEqual([200, { status: 'reset', message: 'Flaky endpoint counters cleared' }]);
      expect(await status('/api/v1/flaky?page=1&fail_on=1')).toBe(500);
    });

    it('answers a JSON 500 for a non-integer fail_on token', async () => {
      const res = await call('/api/v1/flaky?page=1&fail_on=x');
      expect([res.status, res.body]).toEqual([500, { detail: 'Internal Server Error' }]);
    });
  });

  describe('GET /api/v1/errors', () => {
    it.each([
      ['429', 429, { error: 'Too Many Requests', message: 'Rate limit exceeded' }, '5'],
      ['500', 500, { detail: 'Internal Server Error - simulated' }, null],
      ['503', 503, { error: 'Service Unavailable', message: 'Server temporarily unavailable' }, '5'],
      ['auth', 401, { detail: 'Unauthorized - invalid credentials' }, null],
      ['403', 403, { detail: 'Forbidden - insufficient permissions' }, null],
      ['404', 404, { detail: 'Not Found - resource does not exist' }, null],
    ])('error_type=%s answers %d', async (type, code, body, retryAfter) => {
      const res = await call(`/api/v1/errors?error_type=${type}`);
      expect([res.status, res.body, res.headers.get('retry-after')]).toEqual([code, body, retryAfter]);
    });

    it('sends retry_after in the Retry-After header of 429 and 503', async () => {
      expect((await call('/api/v1/errors?error_type=429&retry_after=2')).headers.get('retry-after')).toBe('2');
      expect((await call('/api/v1/errors?error_type=503&retry_after=9')).headers.get('retry-after')).toBe('9');
      expect((await call('/api/v1/errors?error_type=429&retry_after=soon')).status).toBe(422);
    });

    it('answers a successful flaky-style page for any other or absent error_type, without counting', async () => {
      const absent = await call<FlakyBody>('/api/v1/errors?page=4');
      expect(absent.status).toBe(200);
      expect(absent.body.data.map((item) => item.id)).toEqual([31, 32, 33, 34, 35]);
      expect((await call('/api/v1/errors?error_type=teapot')).body).toEqual((await call('/api/v1/flaky')).body);
      expect(await status('/api/v1/flaky?page=4&fail_on=4')).toBe(500);
    });

    it('sleeps before answering error_type=timeout', async () => {
      const started = Date.now();
      const res = await call('/api/v1/errors?error_type=timeout');
      expect([res.status, res.body]).toEqual([200, { data: [], simulated: 'timeout' }]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    });
  });

  describe('GET /api/v1/rate-limited', () => {
    it('marks items and reports the window after recording the request', async () => {
      const res = await call<FlakyBody>('/api/v1/rate-limited?page=1&requests_per_second=1');
      expect(res.body.data[0]).toEqual({ id: 1, value: 'item_1', rate_limited: true });
      expect(res.body.paging).toEqual({ hasMore: true, page: 1, pageSize: 10 });
      expect(res.body.rate_limit).toEqual({ requests_in_window: 1, limit: 1 });
    });

    it('shares one window across pages and does not record rejected requests', async () => {
      expect(await status('/api/v1/rate-limited?page=1')).toBe(200);
      expect((await call<FlakyBody>('/api/v1/rate-limited?page=2')).body.rate_limit).toEqual({ requests_in_window: 2, limit: 2 });
      const rejected = await call('/api/v1/rate-limited?page=3');
      expect([rejected.status, rejected.body]).toEqual([429, { error: 'Rate limit exceeded', requests_in_window: 2, limit: 2 }]);
      expect(rejected.headers.get('retry-after')).toBe('1');
      const wider = await call<FlakyBody>('/api/v1/rate-limited?page=3&requests_per_second=3');
      expect(wider.body.rate_limit).toEqual({ requests_in_window: 3, limit: 3 });
    });

    it('accepts again once the accepted requests are one second old', async () => {
      expect(await status('/api/v1/rate-limited?page=1&requests_per_second=1')).toBe(200);
      expect(await status('/api/v1/rate-limited?page=2&requests_per_second=1')).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, 1010));
      expect(await status('/api/v1/rate-limited?page=2&requests_per_second=1')).toBe(200);
    });
  });
});
