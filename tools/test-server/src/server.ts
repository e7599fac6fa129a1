import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { detailError, HttpError } from './http/http-error';
import { readParams, type ParamSchema } from './http/params';
import type { Reply, RouteContext } from './http/route';
import { Router } from './http/router';
import { resolveLimits, type Limits } from './limits';
import { allRoutes } from './routes';
import { ServerState } from './server-state';

export interface TestServerOptions {
  /** Port to listen on; 0 (the default) picks an ephemeral one. */
  port?: number;
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
  /** Overrides of the tunable constants (TEST_SERVER.md §0). */
  env?: Partial<Limits>;
}

export interface TestServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:5555`. */
  url: string;
  /** Stops listening, cancels pending sleeps and drops open connections. */
  close(): Promise<void>;
  /** Clears all in-memory state, as `POST /__reset` does. */
  reset(): void;
}

/** Starts the loopback test server of TEST_SERVER.md. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const limits = resolveLimits(options.env);
  const state = new ServerState(limits);
  const router = new Router(allRoutes);
  const host = options.host ?? '127.0.0.1';

  const server = createServer((req, res) => {
    void serve(req, res, router, state);
  });
  await listen(server, options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    reset: () => state.reset(),
    close: async () => {
      state.abortSleeps();
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      server.closeAllConnections();
      await closed;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function serve(req: IncomingMessage, res: ServerResponse, router: Router, state: ServerState): Promise<void> {
  try {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const match = router.match(req.method ?? 'GET', url.pathname);
    if (match.kind === 'not-found') throw detailError(404, 'Not Found');
    if (match.kind === 'method-not-allowed') throw detailError(405, 'Method Not Allowed', { Allow: match.allow });

    const lastValue = (name: string): string | undefined => url.searchParams.getAll(name).at(-1);
    const ctx: RouteContext = {
      state,
      limits: state.limits,
      baseUrl: baseUrlOf(req),
      read: <Q extends ParamSchema, P extends ParamSchema>(query: Q, path?: P) =>
        readParams<Q, P>({ schema: query, lookup: lastValue }, path && { schema: path, lookup: (name) => match.params[name] }),
    };
    send(res, await match.route.handle(ctx));
  } catch (error) {
    if (error instanceof HttpError) {
      send(res, { status: error.status, body: error.body, headers: { ...error.headers } });
    } else if (state.closing) {
      res.destroy();
    } else {
      const errorId = randomUUID();
      console.error(JSON.stringify({ level: 'error', msg: 'test server handler failed', errorId, error: String(error) }));
      send(res, { status: 500, body: { detail: 'Internal Server Error' } });
    }
  }
}

/** The request's own `scheme://host:port`. */
function baseUrlOf(req: IncomingMessage): string {
  if (req.headers.host) return `http://${req.headers.host}`;
  const { localAddress, localPort } = req.socket;
  const host = localAddress?.includes(':') ? `[${localAddress}]` : localAddress;
  return `http://${host ?? '127.0.0.1'}:${localPort ?? 0}`;
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(reply.body);
  res.writeHead(reply.status ?? 200, {
    ...reply.headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
