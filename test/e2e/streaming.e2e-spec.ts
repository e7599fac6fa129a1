import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { EventType } from '@noetl/event-kernel';
import type { EventView } from '@noetl/runtime';
import { startRoleApp, type CliServerProcess } from '../support/cli-server-process';
import { startE2eApp, type E2eApp } from '../support/e2e-app';
import { ofType } from '../support/ledger-checks';
import { requireNats } from '../support/services';
import { createEmptyDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

jest.setTimeout(120_000);

const ROWS = 10_000;
/** The second, larger stream: five times the rows through the same chunk size. */
const MORE_ROWS = 50_000;
const CHUNK_ROWS = 1_000;
/** The streaming worker's V8 old space (MiB), below the 100 MiB of the larger stream. */
const HEAP_MIB = 96;
/** Bytes of padding per row (64 md5s): 10,000 rows are 20 MiB, a chunk 2 MiB. */
const PAD = 2_048;

const PLAYBOOK = (dsn: string) => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: streaming, path: e2e/streaming}
workload: {rows: ${ROWS}, downstream: true}
executor: {spec: {final_step: summary}}
workflow:
  - step: read
    tool:
      kind: postgres
      connection: "${dsn}"
      query: "SELECT id, pad FROM stream_source WHERE id <= $1 ORDER BY id"
      params: ["{{ workload.rows }}"]
      stream: {chunk_rows: ${CHUNK_ROWS}}
    next:
      - step: each_chunk
        on: call.partial
        when: "{{ workload.downstream }}"
      - step: summary
  - step: each_chunk
    tool:
      kind: javascript
      code: "return {index: input.index, has_more: input.more, count: input.rows.length, first: input.rows[0].id, last: input.rows[input.rows.length - 1].id, width: input.rows[0].pad.length}"
      input: {index: "{{ chunk.index }}", more: "{{ chunk.has_more }}", rows: "{{ chunk.rows }}"}
  - step: summary
    tool: {kind: javascript, code: "return input.r", input: {r: {rows: "{{ read.row_count }}", chunks: "{{ read.chunk_count }}"}}}
`;

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** The peak resident set of a process so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  const kb = Number(/(\d+)/.exec(line ?? '')?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmHWM for process ${pid}`);
  return kb * 1024;
}

/**
 * A postgres step with `stream: {chunk_rows}` (issue 13 item 3, seed 001
 * P5.2): its worker, a process of its own on the HTTP control plane (the only
 * worker that runs postgres), reads a 10,000-row table through a cursor and
 * reports ten `call.partial` events before its `command.completed`; an arc on
 * `call.partial` runs the downstream step once per chunk, in order, on the
 * api's own worker. The streaming worker's peak RSS is measured, and it then
 * streams five times as many rows (100 MiB) with an old space of 96 MiB:
 * holding the result would kill it; its peak RSS barely moves.
 */
describe('streaming a postgres result in chunks', () => {
  let app: E2eApp;
  let source: TestDatabase;
  let worker: CliServerProcess;
  let apiUrl: string;

  beforeAll(async () => {
    const nats = await requireNats();
    const tenant = `t${randomBytes(4).toString('hex')}`;
    source = await createEmptyDatabase();
    const db = new Client({ connectionString: source.url });
    db.on('error', () => undefined);
    await db.connect();
    try {
      await db.query(
        `CREATE TABLE stream_source AS SELECT g AS id, repeat(md5(g::text), ${PAD / 32}) AS pad FROM generate_series(1, ${MORE_ROWS}) g`,
      );
    } finally {
      await db.end();
    }
    app = await startE2eApp({ NATS_URL: nats, NOETL_TENANT_ID: tenant, NOETL_WORKER_TOOLS: 'javascript,noop' });
    await app.app.listen(0, '127.0.0.1');
    const { port } = app.app.getHttpServer().address() as { port: number };
    apiUrl = `http://127.0.0.1:${port}`;
    worker = await startRoleApp('worker', {
      DATABASE_URL: app.databaseUrl,
      NATS_URL: nats,
      NOETL_TENANT_ID: tenant,
      NOETL_SERVER_URL: apiUrl,
      NOETL_WORKER_TOOLS: 'postgres',
      LOG_LEVEL: 'warn',
      // An old space smaller than the larger stream: a worker that kept the rows would run out of heap and die.
      NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}`,
    });
    await app.client.register(PLAYBOOK(source.url));
  });

  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await source?.drop();
  });

  it('reports 10 chunks before the command completes, runs the downstream step once per chunk in order, and keeps the worker memory bounded whatever the total', async () => {
    // The worker registered and idles: what it holds before the stream.
    const registered = async (): Promise<boolean> => {
      const { workers } = (await (await fetch(`${apiUrl}/api/workers`)).json()) as { workers: { tools: string[] | null }[] };
      return workers.some((w) => w.tools?.includes('postgres'));
    };
    await waitFor(registered, { timeoutMs: 20_000, description: 'the postgres worker to register' });
    const before = peakRss(worker.pid);

    const detail = await app.client.waitForTerminal(await app.client.execute('e2e/streaming'), 90_000);
    const after = peakRss(worker.pid);
    expect(detail.status).toBe('COMPLETED');
    expect(detail.result).toEqual({ rows: ROWS, chunks: 10 });

    const events = await app.client.events(detail.execution_id);
    const partials = ofType(events, EventType.CallPartial);
    expect(partials.map((e) => e.payload)).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        task: 'read',
        chunk_index: i,
        has_more: i < 9,
        row_count: CHUNK_ROWS,
        columns: ['id', 'pad'],
        rows_ref: expect.objectContaining({ sha256: expect.any(String) }),
      })),
    );
    const readCommand = partials[0]!.command_id;
    const position = (where: (e: EventView) => boolean): number => events.findIndex(where);
    const done = position((e) => e.event_type === EventType.CommandCompleted && e.command_id === readCommand);
    expect(done).toBeGreaterThan(position((e) => e === partials[9]));
    expect(position((e) => e.event_type === EventType.StepExit && e.step === 'read')).toBeGreaterThan(done);

    const chunkRuns = ofType(events, EventType.StepEnter).filter((e) => e.step === 'each_chunk');
    expect(chunkRuns.map((e) => (e.payload as { chunk: { chunk_index: number } }).chunk.chunk_index)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    const results = ofType(events, EventType.StepExit)
      .filter((e) => e.step === 'each_chunk')
      .map((e) => (e.payload as { result: { index: number } }).result)
      .sort((a, b) => a.index - b.index);
    expect(results).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        index: i,
        has_more: i < 9,
        count: CHUNK_ROWS,
        first: i * CHUNK_ROWS + 1,
        last: (i + 1) * CHUNK_ROWS,
        width: PAD,
      })),
    );
    expect(ofType(events, EventType.StepEnter).filter((e) => e.step === 'summary')).toHaveLength(1);

    process.stdout.write(
      `streaming worker peak RSS: ${mib(before)} before, ${mib(after)} after streaming ${mib(ROWS * PAD)} of rows in chunks of ${mib(CHUNK_ROWS * PAD)}\n`,
    );

    // Five times the rows through the same chunks: a worker that held the result would grow by at least its size.
    const more = await app.client.waitForTerminal(
      await app.client.execute('e2e/streaming', { rows: MORE_ROWS, downstream: false }),
      90_000,
    );
    expect(more).toMatchObject({ status: 'COMPLETED', result: { rows: MORE_ROWS, chunks: MORE_ROWS / CHUNK_ROWS } });
    const peak = peakRss(worker.pid);
    process.stdout.write(`streaming worker peak RSS: ${mib(peak)} after streaming ${mib(MORE_ROWS * PAD)} (+${mib(peak - after)})\n`);
    expect(peak - after).toBeLessThan((MORE_ROWS * PAD) / 4);
  });
});
