import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedHttpServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:5555`. */
  url: string;
  /** How many requests `/fail-first/<key>` has answered so far. */
  calls(key: string): number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server whose answers a spec scripts through the URL, for
 * behaviours the fixtures' test server does not offer:
 * - `GET /fail-first/<key>?times=N&status=S` answers S (default 503) to the
 *   first N requests for `key`, then 200 `{key, calls}`; counts every request.
 * - `GET /slow?ms=N` answers 200 `{slept_ms: N}` after N ms (a slow call).
 * - `GET /page?n=N&of=M` answers 200 `{n, has_more: n < M, data: [n]}`: page
 *   N of M, for pagination.
 * - `POST /echo` answers 200 `{method, query, header, body}` (`header` is the
 *   request's `x-e2e` header).
 * - `ANY /mirror?status=S` answers S (default 200) with everything it was sent,
 *   as a careless or hostile remote would: the request's Authorization in an
 *   `x-mirror-authorization` header, and `{url, headers, body}` with the body
 *   as text and base64.
 */
export async function startScriptedHttpServer(): Promise<ScriptedHttpServer> {
  const counts = new Map<string, number>();
  const pending = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    void answer(req, res).catch((error: unknown) => reply(res, 500, { error: String(error) }));
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://loopback');
    const failFirst = /^\/fail-first\/([\w-]+)$/.exec(url.pathname);
    if (failFirst?.[1]) {
      const key = failFirst[1];
      const calls = (counts.get(key) ?? 0) + 1;
      counts.set(key, calls);
      const times = Number(url.searchParams.get('times') ?? '1');
      if (calls <= times) return reply(res, Number(url.searchParams.get('status') ?? '503'), { error: 'scripted failure', key, calls });
      return reply(res, 200, { key, calls });
    }
    if (url.pathname === '/slow') {
      const ms = Number(url.searchParams.get('ms') ?? '0');
      const timer = setTimeout(() => {
        pending.delete(timer);
        reply(res, 200, { slept_ms: ms });
      }, ms);
      pending.add(timer);
      return;
    }
    if (url.pathname === '/page') {
      const n = Number(url.searchParams.get('n') ?? '1');
      return reply(res, 200, { n, has_more: n < Number(url.searchParams.get('of') ?? '1'), data: [n] });
    }
    if (url.pathname === '/echo') {
      const body = await readBody(req);
      return reply(res, 200, {
        method: req.method,
        query: Object.fromEntries(url.searchParams),
        header: req.headers['x-e2e'] ?? null,
        body: body ? (JSON.parse(body) as unknown) : null,
      });
    }
    if (url.pathname === '/mirror') {
      const body = await readBody(req);
      const text = JSON.stringify({ url: req.url, headers: req.headers, body, body_base64: Buffer.from(body).toString('base64') });
      res.writeHead(Number(url.searchParams.get('status') ?? '200'), {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(text),
        'X-Mirror-Authorization': req.headers.authorization ?? '',
      });
      res.end(text);
      return;
    }
    reply(res, 404, { error: `no scripted route ${url.pathname}` });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: (key) => counts.get(key) ?? 0,
    close: async () => {
      for (const timer of pending) clearTimeout(timer);
      const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      server.closeAllConnections();
      await closed;
    },
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
