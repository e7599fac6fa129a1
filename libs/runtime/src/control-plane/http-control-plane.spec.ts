import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RuntimeError } from '../runtime-error';
import type { ClaimedCommand } from './control-plane';
import { HttpControlPlane } from './http-control-plane';

/**
 * A loopback server that answers as the API would, so the adapter's real HTTP
 * path (undici, keep-alive, retries) is exercised. The API's own e2e suite
 * tests the real endpoints.
 */
interface Received {
  method: string;
  url: string;
  contentType: string | undefined;
  body: unknown;
}
type Reply = { status: number; body?: unknown } | 'hang';

class FakeApi {
  readonly received: Received[] = [];
  private replies: Reply[] = [];
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      this.received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        contentType: req.headers['content-type'],
        body: text ? JSON.parse(text) : undefined,
      });
      const reply = this.replies.shift() ?? { status: 200, body: {} };
      if (reply === 'hang') return;
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  answer(...replies: Reply[]): void {
    this.replies.push(...replies);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const claimed: ClaimedCommand = {
  command_id: '11',
  lease_token: 'tok',
  execution_id: '7',
  step: 'fetch',
  run_id: 'r1',
  kind: 'http',
  attempt: 1,
  max_attempts: 3,
  lease_until: '2030-01-01T00:00:00.000Z',
  spec: { tool: { kind: 'http' } },
  scope: { workload: { n: 1 }, start: { data: [1] } },
  result_views: { start: 'step' },
};

describe('HttpControlPlane', () => {
  let api: FakeApi;
  let baseUrl: string;
  let plane: HttpControlPlane;

  beforeEach(async () => {
    api = new FakeApi();
    baseUrl = await api.start();
    plane = new HttpControlPlane(`${baseUrl}/`, { retryDelayMs: 1 });
  });

  afterEach(async () => {
    await plane.close();
    await api.stop();
  });

  it('posts each call as JSON to its endpoint and returns the answer', async () => {
    const calls = [{ task: 'fetch', attempts: 1, duration_ms: 5, status: 'ok' as const }];
    api.answer(
      { status: 200, body: claimed },
      { status: 200, body: { lease_until: '2030-01-01T00:00:30.000Z', cancelled: true } },
      { status: 200, body: {} },
      { status: 200 },
      { status: 201, body: { execution_id: '99' } },
      { status: 202 },
      { status: 202, body: { command_id: '11', chunk_index: 0, pending_chunks: 2 } },
      { status: 200, body: { pending_chunks: 1 } },
      { status: 200, body: { type: 'postgres', data: { password: 'pw' } } },
    );

    await expect(plane.claim('11', { worker_id: 'w1', lease_ms: 5_000 })).resolves.toEqual(claimed);
    await expect(plane.heartbeat('11', { worker_id: 'w1', lease_token: 'tok' })).resolves.toEqual({
      lease_until: '2030-01-01T00:00:30.000Z',
      cancelled: true,
    });
    await expect(
      plane.complete('11', { worker_id: 'w1', lease_token: 'tok', result: { rows: 2 }, ctx: { 'a.b': 1 }, calls, duration_ms: 9 }),
    ).resolves.toBeUndefined();
    await expect(
      plane.fail('11', { worker_id: 'w1', lease_token: 'tok', error: { kind: 'http', message: 'boom', status: 500 } }),
    ).resolves.toBeUndefined();
    await expect(
      plane.startChild('11', { worker_id: 'w1', lease_token: 'tok', path: 'child/flow', version: 2, payload: { x: 1 } }),
    ).resolves.toEqual({ execution_id: '99' });
    await expect(plane.recordCalls('11', { worker_id: 'w1', lease_token: 'tok', calls })).resolves.toBeUndefined();
    const chunk = { chunk_index: 0, has_more: false, columns: ['n'], rows: [{ n: 1 }] };
    await expect(plane.reportPartial('11', { worker_id: 'w1', lease_token: 'tok', ...chunk })).resolves.toEqual({ pending_chunks: 2 });
    await expect(plane.streamBacklog('11', { worker_id: 'w1', lease_token: 'tok' })).resolves.toEqual({ pending_chunks: 1 });
    await expect(plane.resolveCredential('11', { worker_id: 'w1', lease_token: 'tok', name: 'pg' })).resolves.toEqual({
      type: 'postgres',
      data: { password: 'pw' },
    });

    expect(api.received).toEqual(
      [
        ['/api/commands/11/claim', { worker_id: 'w1', lease_ms: 5_000 }],
        ['/api/commands/11/heartbeat', { worker_id: 'w1', lease_token: 'tok' }],
        [
          '/api/commands/11/complete',
          { worker_id: 'w1', lease_token: 'tok', result: { rows: 2 }, ctx: { 'a.b': 1 }, calls, duration_ms: 9 },
        ],
        ['/api/commands/11/fail', { worker_id: 'w1', lease_token: 'tok', error: { kind: 'http', message: 'boom', status: 500 } }],
        ['/api/commands/11/child', { worker_id: 'w1', lease_token: 'tok', path: 'child/flow', version: 2, payload: { x: 1 } }],
        ['/api/events', { command_id: '11', worker_id: 'w1', lease_token: 'tok', calls }],
        [
          '/api/commands/11/partial',
          { worker_id: 'w1', lease_token: 'tok', chunk_index: 0, has_more: false, columns: ['n'], rows: [{ n: 1 }] },
        ],
        ['/api/commands/11/stream-backlog', { worker_id: 'w1', lease_token: 'tok' }],
        ['/api/commands/11/credential', { worker_id: 'w1', lease_token: 'tok', name: 'pg' }],
      ].map(([url, body]) => ({ method: 'POST', url, contentType: 'application/json', body })),
    );
  });

  it('reads no backlog from an API older than backpressure: the stream goes on', async () => {
    api.answer({ status: 202, body: { command_id: '11', chunk_index: 0 } });
    const chunk = { chunk_index: 0, has_more: true, columns: ['n'], rows: [{ n: 1 }] };
    await expect(plane.reportPartial('11', { worker_id: 'w1', lease_token: 'tok', ...chunk })).resolves.toEqual({ pending_chunks: 0 });
  });

  it.each([
    [409, 'already_terminal'],
    [409, 'already_claimed'],
    [409, 'lease_lost'],
    [404, 'not_found'],
  ] as const)('turns a %i %s error body into that RuntimeError without retrying', async (status, code) => {
    api.answer({ status, body: { code, message: `command 11: ${code}`, details: { command_id: '11' } } });

    const error = await plane.heartbeat('11', { worker_id: 'w1', lease_token: 'tok' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RuntimeError);
    expect(error).toMatchObject({ code, message: `command 11: ${code}`, details: { command_id: '11' } });
    expect(api.received).toHaveLength(1);
  });

  it('treats an error body without a runtime code as a plain error naming the URL', async () => {
    api.answer({ status: 404, body: { statusCode: 404, message: 'Cannot POST /api/commands/11/claim' } });

    const error = await plane.claim('11', { worker_id: 'w1' }).catch((e: unknown) => e);

    expect(error).not.toBeInstanceOf(RuntimeError);
    expect((error as Error).message).toBe(`POST ${baseUrl}/api/commands/11/claim answered HTTP 404: Cannot POST /api/commands/11/claim`);
    expect(api.received).toHaveLength(1);
  });

  it('retries a 503 and returns the answer that follows', async () => {
    api.answer({ status: 503 }, { status: 503, body: { code: 'unavailable', message: 'database down' } }, { status: 200, body: claimed });

    await expect(plane.claim('11', { worker_id: 'w1' })).resolves.toEqual(claimed);

    expect(api.received).toHaveLength(3);
    expect(api.received.map((r) => r.body)).toEqual([{ worker_id: 'w1' }, { worker_id: 'w1' }, { worker_id: 'w1' }]);
  });

  it('gives up after the last attempt with the URL and the last failure', async () => {
    const twice = new HttpControlPlane(baseUrl, { attempts: 2, retryDelayMs: 1 });
    api.answer({ status: 500 }, { status: 503, body: { code: 'unavailable', message: 'database down' } });
    try {
      await expect(twice.complete('11', { worker_id: 'w1', lease_token: 'tok' })).rejects.toThrow(
        new Error(`POST ${baseUrl}/api/commands/11/complete failed after 2 attempt(s): HTTP 503: unavailable: database down`),
      );
      expect(api.received).toHaveLength(2);
    } finally {
      await twice.close();
    }
  });

  it('names the URL when the connection is refused', async () => {
    const closed = new FakeApi();
    const closedUrl = await closed.start();
    await closed.stop();
    const refused = new HttpControlPlane(closedUrl, { attempts: 2, retryDelayMs: 1 });
    try {
      await expect(refused.heartbeat('11', { worker_id: 'w1', lease_token: 'tok' })).rejects.toThrow(
        `POST ${closedUrl}/api/commands/11/heartbeat failed after 2 attempt(s): connect ECONNREFUSED`,
      );
    } finally {
      await refused.close();
    }
  });

  it('abandons and retries an attempt that gets no answer within the timeout', async () => {
    const impatient = new HttpControlPlane(baseUrl, { attempts: 2, retryDelayMs: 1, timeoutMs: 100 });
    api.answer('hang', 'hang');
    try {
      await expect(impatient.heartbeat('11', { worker_id: 'w1', lease_token: 'tok' })).rejects.toThrow(
        `POST ${baseUrl}/api/commands/11/heartbeat failed after 2 attempt(s): timed out after 100 ms`,
      );
      expect(api.received).toHaveLength(2);
    } finally {
      await impatient.close();
    }
  });

  it('does not quote a credential answer of an unexpected shape', async () => {
    api.answer({ status: 200, body: { secret: 'hunter2' } });

    const error = await plane.resolveCredential('11', { worker_id: 'w1', lease_token: 'tok', name: 'pg' }).catch((e: unknown) => e);

    expect((error as Error).message).toBe(`POST ${baseUrl}/api/commands/11/credential answered 200 with a body of an unexpected shape`);
    expect(String((error as Error).stack)).not.toContain('hunter2');
  });

  it("asks GET /api/workers/ledger for the ledger's identity, and retries it like any call", async () => {
    api.answer(
      { status: 503 },
      { status: 200, body: { cluster: '7301', started_at: '2026-11-28 01:00:00+00', oid: '16384', name: 'noetl' } },
    );

    await expect(plane.ledgerIdentity()).resolves.toEqual({
      cluster: '7301',
      startedAt: '2026-11-28 01:00:00+00',
      oid: '16384',
      name: 'noetl',
    });
    expect(api.received.map((r) => [r.method, r.url, r.body])).toEqual([
      ['GET', '/api/workers/ledger', undefined],
      ['GET', '/api/workers/ledger', undefined],
    ]);
  });

  it('refuses a ledger identity of another shape, naming the GET', async () => {
    api.answer({ status: 200, body: { cluster: 7301 } });

    await expect(plane.ledgerIdentity()).rejects.toThrow(
      `GET ${baseUrl}/api/workers/ledger answered 200 with a body of an unexpected shape`,
    );
  });
});
