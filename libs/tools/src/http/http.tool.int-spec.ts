import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolContext } from '../tool';
import { HttpTool } from './http.tool';
import { callFailure } from '../testing/call-failure';
import { testToolContext } from '../testing/tool-context';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

const routes: Record<string, Handler> = {
  '/json': (req, body, res) => json(res, 200, { method: req.method, url: req.url, body, headers: req.headers }),
  '/text': (_req, _body, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end('plain words');
  },
  '/null': (_req, _body, res) => json(res, 200, null),
  '/cursor': (_req, _body, res) => json(res, 200, { data: [1, 2], next_cursor: null }),
  '/missing': (_req, _body, res) => json(res, 404, { detail: 'no such thing' }),
  '/limited': (_req, _body, res) => {
    res.setHeader('retry-after', '2');
    json(res, 429, { detail: 'slow down' });
  },
  '/limited-date': (_req, _body, res) => {
    res.setHeader('retry-after', new Date(Date.now() + 60_000).toUTCString());
    json(res, 503, { detail: 'later' });
  },
  '/broken': (_req, _body, res) => {
    res.statusCode = 500;
    res.end('internal failure');
  },
  '/forbidden': (_req, _body, res) => json(res, 403, { detail: 'nope' }),
  '/echo-401': (req, _body, res) => json(res, 401, { detail: `bad credentials: ${req.headers.authorization ?? ''}` }),
  '/slow': (_req, _body, res) => {
    const timer = setTimeout(() => json(res, 200, { late: true }), 5_000);
    res.on('close', () => clearTimeout(timer));
  },
  '/redirect': (_req, _body, res) => {
    res.writeHead(302, { location: '/json?from=redirect' });
    res.end();
  },
};

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const credentials: Record<string, Record<string, unknown>> = {
  api_bearer: { type: 'bearer', token: 'tok-123' },
  api_basic: { type: 'basic', username: 'u', password: 'p' },
  api_headers: { headers: { 'x-api-key': 'k-1' } },
};

function context(signal = new AbortController().signal): ToolContext {
  return testToolContext(credentials, { signal });
}

describe('HttpTool against a local HTTP server', () => {
  let server: Server;
  let base: string;
  const tool = new HttpTool();
  const run = (config: Record<string, unknown>, ctx = context()) => tool.run(config, ctx) as Promise<Record<string, unknown>>;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
        if (route) route(req, body, res);
        else json(res, 404, {});
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await tool.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('returns the envelope with data and body holding the parsed JSON, and sends params as a query string', async () => {
    const result = await run({ url: `${base}/json`, params: { page: 2, q: 'a b', tag: ['x', 'y'], skip: null, flag: true } });
    expect(result).toMatchObject({ status_code: 200, url: `${base}/json?page=2&q=a+b&tag=x&tag=y&flag=true` });
    expect(result.data).toBe(result.body);
    expect(result.data).toMatchObject({ method: 'GET', url: '/json?page=2&q=a+b&tag=x&tag=y&flag=true' });
    expect((result.headers as Record<string, string>)['content-type']).toBe('application/json');
    expect(typeof result.elapsed).toBe('number');
  });

  it('sends an object body as JSON with a content-type, under any of its aliases', async () => {
    for (const key of ['body', 'payload', 'json', 'data']) {
      const result = await run({ method: 'post', endpoint: `${base}/json`, [key]: { a: 1 }, headers: { 'X-Trace': 7 } });
      const echoed = result.data as { method: string; body: string; headers: Record<string, string> };
      expect(echoed).toMatchObject({ method: 'POST', body: '{"a":1}' });
      expect(echoed.headers).toMatchObject({ 'content-type': 'application/json', 'x-trace': '7' });
    }
  });

  it('keeps a text body as text and a JSON null as null', async () => {
    expect((await run({ url: `${base}/text` })).data).toBe('plain words');
    const nullBody = await run({ url: `${base}/null` });
    expect(nullBody.data).toBeNull();
    expect(nullBody.body).toBeNull();
    expect((await run({ url: `${base}/cursor` })).data).toEqual({ data: [1, 2], next_cursor: null });
  });

  it('follows redirects and reports the final URL', async () => {
    const result = await run({ url: `${base}/redirect` });
    expect(result).toMatchObject({ status_code: 200, url: `${base}/json?from=redirect` });
  });

  it('adds auth headers from bearer, basic and header credentials', async () => {
    const seen = async (auth: unknown) => ((await run({ url: `${base}/json`, auth })).data as { headers: Record<string, string> }).headers;
    expect((await seen('api_bearer')).authorization).toBe('Bearer tok-123');
    expect((await seen('api_basic')).authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect((await seen('api_headers'))['x-api-key']).toBe('k-1');
  });

  it('keeps credential values out of the message even when the server echoes them', async () => {
    const err = await callFailure(run({ url: `${base}/echo-401`, auth: 'api_bearer' }));
    expect(err.info).toMatchObject({ kind: 'auth', status: 401 });
    expect(err.info.message).toContain('bad credentials');
    expect(err.info.message).not.toContain('tok-123');
  });

  it('fails a 404 as not_found with the envelope as data', async () => {
    const err = await callFailure(run({ url: `${base}/missing` }));
    expect(err.info).toMatchObject({ kind: 'not_found', status: 404, status_code: 404, code: 'HTTP_404', retryable: false });
    expect(err.info.message).toContain('404');
    expect(err.data).toMatchObject({ status_code: 404, data: { detail: 'no such thing' }, body: { detail: 'no such thing' } });
  });

  it('fails a 429 as a retryable rate_limit honouring Retry-After seconds', async () => {
    const err = await callFailure(run({ url: `${base}/limited` }));
    expect(err.info).toMatchObject({ kind: 'rate_limit', retryable: true, retry_after_ms: 2000 });
  });

  it('reads a Retry-After HTTP-date on a 503', async () => {
    const err = await callFailure(run({ url: `${base}/limited-date` }));
    expect(err.info).toMatchObject({ kind: 'server_error', retryable: true });
    expect(err.info.retry_after_ms).toBeGreaterThan(50_000);
    expect(err.info.retry_after_ms).toBeLessThanOrEqual(60_000);
  });

  it('fails a 500 as a retryable server_error and a 403 as auth', async () => {
    const err = await callFailure(run({ url: `${base}/broken` }));
    expect(err.info).toMatchObject({ kind: 'server_error', retryable: true, status: 500 });
    expect(err.data).toMatchObject({ data: 'internal failure' });
    expect((await callFailure(run({ url: `${base}/forbidden` }))).info).toMatchObject({ kind: 'auth', retryable: false });
  });

  it('times out after `timeout` seconds as a retryable timeout saying "timed out"', async () => {
    const started = Date.now();
    const err = await callFailure(run({ url: `${base}/slow`, timeout: 0.3 }));
    expect(err.info).toMatchObject({ kind: 'timeout', retryable: true });
    expect(err.info.message).toContain('timed out');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reports a refused connection as a retryable connection error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await callFailure(run({ url: `http://127.0.0.1:${port}/` }));
    expect(err.info).toMatchObject({ kind: 'connection', retryable: true, code: 'ECONNREFUSED' });
  });

  it('stops with kind cancelled when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = callFailure(run({ url: `${base}/slow` }, context(controller.signal)));
    setTimeout(() => controller.abort(), 100);
    const err = await pending;
    expect(err.info).toMatchObject({ kind: 'cancelled', retryable: false });
  });

  it('rejects a config without a url', async () => {
    expect((await callFailure(run({ method: 'GET' }))).info).toMatchObject({ kind: 'internal', code: 'INVALID_CONFIG' });
  });
});
