import { randomBytes } from 'node:crypto';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { e2ePlaybook } from '../support/e2e-app';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// One server boot; twenty-four renders of about a second each, two render threads at a time.
jest.setTimeout(120_000);

const EXECUTIONS = 8;
const PROBE_EVERY_MS = 100;
/** Kubernetes' default probe timeout (the issue's measure; k8s/ gives the api 3 s). */
const PROBE_TIMEOUT_MS = 1000;

/** A counter's value in a Prometheus text exposition, 0 when it has none. */
function counterValue(metrics: string, series: string): number {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/**
 * Templates render off the event loop (issue 25 item 7): eight executions
 * at once, each with a template the worker renders and two the scheduler
 * renders (as the execution starts, and as the worker reports), every one
 * within its budget and most of a second of CPU. While
 * they run, GET /health/ready (polled every 100 ms) answers every time
 * within a second (it waited 5.5 s with the renders on the event loop), and
 * each execution completes with what its templates render.
 */
describe('heavy templates against a running server', () => {
  let database: TestDatabase;
  let server: CliServerProcess;
  let client: NoetlHttpClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startCliServer({
      DATABASE_URL: database.url,
      NOETL_TENANT_ID: `t${randomBytes(4).toString('hex')}`,
      NOETL_SWEEP_MS: '200',
      LOG_LEVEL: 'warn',
    });
    client = new NoetlHttpClient(server.url, server.apiKey);
    await client.register(e2ePlaybook('heavy-render'));
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('keeps /health/ready answering within the probe timeout while eight executions render heavy templates, and completes them', async () => {
    const started = Date.now();
    const ids = await Promise.all(Array.from({ length: EXECUTIONS }, (_, i) => client.execute('e2e/heavy_render', { n: i + 1 })));

    let longest = 0;
    let probes = 0;
    const pending = new Set(ids);
    while (pending.size > 0) {
      if (Date.now() - started > 100_000) throw new Error(`still running after 100 s: ${[...pending].join(', ')}`);
      const sent = Date.now();
      const ready = await fetch(`${server.url}/health/ready`);
      longest = Math.max(longest, Date.now() - sent);
      probes++;
      expect(ready.status).toBe(200);
      for (const id of [...pending]) if ((await client.detail(id)).status !== 'RUNNING') pending.delete(id);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
    console.info(`longest /health/ready wait: ${longest} ms over ${probes} probes`);

    expect(longest).toBeLessThan(PROBE_TIMEOUT_MS);
    for (const [i, id] of ids.entries()) {
      expect(await client.detail(id)).toMatchObject({
        status: 'COMPLETED',
        result: { worker: String((i + 1) * 1000), scheduler: String((i + 1) * 2000) },
      });
    }
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.apiKey}` } })).text();
    expect(counterValue(metrics, 'noetl_template_renders_offloaded_total{role="worker"}')).toBeGreaterThanOrEqual(EXECUTIONS);
    expect(counterValue(metrics, 'noetl_template_renders_offloaded_total{role="scheduler"}')).toBeGreaterThanOrEqual(2 * EXECUTIONS);
  });
});
