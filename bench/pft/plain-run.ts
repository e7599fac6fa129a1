import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'pg';
import { Agent, request } from 'undici';
import { DOMAINS } from './mock-api';

export interface PlainRunOptions {
  apiUrl: string;
  databaseUrl: string;
  facilities: number;
  patients: number;
  concurrency: number;
  setupSql: string;
  pageInsertSql: string;
}

interface Page {
  data: unknown[];
  paging: { page: number; hasMore: boolean };
}

/** Retry-After waits before one page gives up. */
const MAX_RATE_LIMITED = 30;

/**
 * The playbook's work without the engine: the same requests and inserts, the
 * same shape (one domain after another, `concurrency` patients at a time,
 * each patient's pages in order, one insert per page).
 */
export async function runPlain(options: PlainRunOptions): Promise<void> {
  const pool = new Pool({ connectionString: options.databaseUrl, max: options.concurrency });
  const agent = new Agent();
  try {
    await pool.query(options.setupSql);
    const roster = Array.from({ length: options.facilities * options.patients }, (_, i) => ({
      facility: Math.floor(i / options.patients) + 1,
      patient: (i % options.patients) + 1,
    }));
    for (const domain of DOMAINS) {
      await inLanes(roster, options.concurrency, async ({ facility, patient }) => {
        const url = `${options.apiUrl}/facilities/${facility}/patients/${patient}/${domain}`;
        for (let page = 1; ; page++) {
          const body = await getPage(agent, `${url}?page=${page}`);
          await pool.query(options.pageInsertSql, [JSON.stringify(body.data), body.paging.page]);
          if (!body.paging.hasMore) break;
        }
      });
    }
  } finally {
    await pool.end();
    await agent.close();
  }
}

async function getPage(agent: Agent, url: string): Promise<Page> {
  for (let refused = 0; ; refused++) {
    const response = await request(url, { dispatcher: agent });
    if (response.statusCode === 429 && refused < MAX_RATE_LIMITED) {
      await response.body.dump();
      await sleep(Number(response.headers['retry-after'] ?? 1) * 1000);
      continue;
    }
    if (response.statusCode !== 200) throw new Error(`GET ${url} answered ${response.statusCode}: ${await response.body.text()}`);
    return (await response.body.json()) as Page;
  }
}

/** Runs `work` over `items` with at most `lanes` at once; the first failure rejects. */
async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
}
