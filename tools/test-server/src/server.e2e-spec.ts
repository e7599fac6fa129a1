import { runCli } from './main';
import { DEFAULT_LIMITS } from './limits';
import { startTestServer, type TestServer } from './server';
import { fetchJson, postJson } from './testing/fetch-json';

describe('startTestServer', () => {
  let server: TestServer;
  const call = (path: string) => fetchJson(server.url + path);

  beforeAll(async () => {
    server = await startTestServer({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => server.close());

  it('listens on an ephemeral loopback port', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
  });

  it('clears every piece of state on POST /__reset', async () => {
    expect((await call('/api/v1/flaky?page=1&fail_on=1')).status).toBe(500);
    await call('/api/v1/concurrency/probe');
    expect((await call('/api/v1/rate-limited?requests_per_second=1')).status).toBe(200);
    expect((await call('/api/v1/patient-records?patientId=P&min_delay=0&max_delay=0&rate_limit=1&pageSize=1')).status).toBe(200);

    const reset = await postJson(`${server.url}/__reset`);
    expect([reset.status, reset.body]).toEqual([200, { status: 'reset' }]);

    expect((await call('/api/v1/flaky?page=1&fail_on=1')).status).toBe(500);
    expect((await call('/api/v1/rate-limited?requests_per_second=1')).status).toBe(200);
    expect((await call('/api/v1/patient-records?patientId=P&min_delay=0&max_delay=0&rate_limit=1&pageSize=1')).status).toBe(200);
    expect((await call('/api/v1/concurrency/stats')).body).toEqual(expect.objectContaining({ started: 0, completed: 0 }));
  });

  it('clears the same state through reset()', async () => {
    await call('/api/v1/flaky?page=7&fail_on=7');
    server.reset();
    expect((await call('/api/v1/flaky?page=7&fail_on=7')).status).toBe(500);
  });

  it('keeps state per server instance', async () => {
    const other = await startTestServer();
    try {
      await call('/api/v1/flaky?page=8&fail_on=8');
      expect((await fetchJson(`${other.url}/api/v1/flaky?page=8&fail_on=8`)).status).toBe(500);
    } finally {
      await other.close();
    }
  });

  it('closes promptly while a request is still sleeping', async () => {
    const sleepy = await startTestServer();
    const pending = fetch(`${sleepy.url}/api/v1/errors?error_type=timeout`).then(
      (res) => res.status,
      () => 'aborted',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await sleepy.close();
    // The sleeping request would hold a close that waited for it for its whole sleep.
    expect(Date.now() - started).toBeLessThan((DEFAULT_LIMITS.ERRORS_TIMEOUT_SECONDS * 1000) / 2);
    expect(await pending).toBe('aborted');
  });

  it('refuses invalid limits', async () => {
    await expect(startTestServer({ env: { PATIENT_RECORDS_MIN_PAGES: 9 } })).rejects.toThrow(/MAX_PAGES/);
  });
});

describe('runCli', () => {
  it('starts on the given port with limits read from the environment and logs the URL', async () => {
    const lines: string[] = [];
    const server = await runCli(['node', 'main.js', '0'], { PFT_RATE_LIMIT: '1' }, (line) => lines.push(line));
    try {
      expect(JSON.parse(lines[0]!)).toEqual({ level: 'info', msg: 'test server listening', url: server.url });
      expect((await fetchJson(`${server.url}/api/v1/patient/demographics?patientId=1`)).status).toBe(200);
      expect((await fetchJson(`${server.url}/api/v1/patient/demographics?patientId=1`)).status).toBe(429);
    } finally {
      await server.close();
    }
  });

  it('refuses a malformed port or environment', async () => {
    await expect(runCli(['node', 'main.js', 'abc'], {}, () => undefined)).rejects.toThrow(/invalid port/);
    await expect(runCli(['node', 'main.js', '0'], { PFT_RATE_LIMIT: 'many' }, () => undefined)).rejects.toThrow(/PFT_RATE_LIMIT/);
  });
});
