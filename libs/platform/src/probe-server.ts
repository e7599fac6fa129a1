import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Each dependency's state; a dependency that is down may say why (`{ down: reason }`). */
export type ReadinessCheck = () => Promise<Record<string, 'up' | 'down' | { down: string }>>;

/** Prometheus text exposition of the process's metrics. */
export type MetricsSource = () => Promise<{ contentType: string; body: string }>;

/**
 * The tiny probe server of a non-HTTP app (STYLE.md "Shape"): `/health/live`
 * answers while the process runs; `/health/ready` runs the checks and answers
 * 503 when one is down, with the reasons the checks gave; `/metrics` serves the process's Prometheus metrics.
 */
export async function startProbeServer(
  port: number,
  ready: ReadinessCheck,
  metrics?: MetricsSource,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return send(405, { code: 'method_not_allowed', message: 'use GET' });
    if (req.url === '/health/live') return send(200, { status: 'ok' });
    if (req.url === '/health/ready') {
      ready().then(
        (checks) => {
          const details = Object.fromEntries(Object.entries(checks).map(([name, state]) => [name, state === 'up' ? 'up' : 'down']));
          const reasons = Object.fromEntries(
            Object.entries(checks).flatMap(([name, state]) => (typeof state === 'object' ? [[name, state.down]] : [])),
          );
          const up = Object.values(details).every((state) => state === 'up');
          send(up ? 200 : 503, { status: 'ok', details, ...(up ? {} : { reasons }) });
        },
        (error: unknown) => send(503, { status: 'error', message: error instanceof Error ? error.message : String(error) }),
      );
      return;
    }
    if (req.url === '/metrics' && metrics) {
      metrics().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType });
          res.end(body);
        },
        (error: unknown) => send(500, { code: 'internal', message: error instanceof Error ? error.message : String(error) }),
      );
      return;
    }
    send(404, { code: 'not_found', message: `no route ${req.url}` });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
