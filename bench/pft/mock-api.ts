import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pftRecords } from '../../tools/test-server/src/pft-data';
import { RateWindow } from '../../tools/test-server/src/rate-window';

/** Pages of each patient's domain, the same for every patient so the expected totals are plain products. */
export const DOMAIN_PAGES = { assessments: 4, conditions: 3, medications: 3, vital_signs: 1, demographics: 1 } as const;
export type Domain = keyof typeof DOMAIN_PAGES;
export const DOMAINS = Object.keys(DOMAIN_PAGES) as Domain[];
export const PAGES_PER_PATIENT = DOMAINS.reduce((sum, domain) => sum + DOMAIN_PAGES[domain], 0);

export interface MockApiOptions {
  rowsPerPage: number;
  /** Requests per second over a sliding 1 s window; beyond it a 429 with `Retry-After: 1`. Off when undefined. */
  rateLimit?: number;
}

export interface MockApiCounts {
  /** Every request answered, 429s included. */
  requests: number;
  rateLimited: number;
}

export interface MockApi {
  url: string;
  counts(): MockApiCounts;
  resetCounts(): void;
  close(): Promise<void>;
}

const ROUTE = /^\/facilities\/(\d+)\/patients\/(\d+)\/([a-z_]+)$/;

/**
 * A PFT-like loopback API: `GET /facilities/{f}/patients/{p}/{domain}?page=n`
 * answers `{data, paging: {page, pages, hasMore}}` with `rowsPerPage`
 * deterministic records (the test server's PFT records, keyed `{f}-{p}`).
 */
export async function startMockApi(options: MockApiOptions): Promise<MockApi> {
  const window = new RateWindow();
  let counts: MockApiCounts = { requests: 0, rateLimited: 0 };
  const server = createServer((req, res) => {
    counts.requests += 1;
    if (options.rateLimit !== undefined && !window.tryAcquire(options.rateLimit, performance.now()).accepted) {
      counts.rateLimited += 1;
      send(res, 429, { detail: 'Too Many Requests' }, { 'Retry-After': '1' });
      return;
    }
    answer(req, res, options.rowsPerPage);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ ...counts }),
    resetCounts: () => {
      counts = { requests: 0, rateLimited: 0 };
    },
    close: () => {
      const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      server.closeAllConnections();
      return closed;
    },
  };
}

function answer(req: IncomingMessage, res: ServerResponse, rowsPerPage: number): void {
  const url = new URL(req.url ?? '/', 'http://mock');
  const match = ROUTE.exec(url.pathname);
  const domain = match?.[3];
  if (req.method !== 'GET' || !match || !isDomain(domain)) return send(res, 404, { detail: 'Not Found' });
  const page = Number(url.searchParams.get('page') ?? '1');
  const pages = DOMAIN_PAGES[domain];
  if (!Number.isInteger(page) || page < 1 || page > pages) return send(res, 404, { detail: `page ${page} of ${pages} not found` });
  const data = pftRecords(`${match[1]}-${match[2]}`, domain, page, rowsPerPage);
  send(res, 200, { data, paging: { page, pages, hasMore: page < pages } });
}

function isDomain(value: string | undefined): value is Domain {
  return value !== undefined && Object.hasOwn(DOMAIN_PAGES, value);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
