import { EventType } from '@noetl/event-kernel';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';

jest.setTimeout(60_000);

const MAX_PENDING = 3;
const CHUNKS = 20;
const CHUNK_ROWS = 2;
/** How long the consumer takes per chunk: far slower than the producer reads. */
const CONSUMER_MS = 120;

const PLAYBOOK = (dsn: string, sink: string): string => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: backpressure, path: tests/backpressure}
workflow:
  - step: read
    tool:
      kind: postgres
      connection: "${dsn}"
      query: "SELECT n FROM generate_series(1, ${CHUNKS * CHUNK_ROWS}) AS n ORDER BY n"
      stream: {chunk_rows: ${CHUNK_ROWS}}
    next:
      - {step: load_chunk, on: call.partial}
      - step: done
  - step: load_chunk
    tool: {kind: http, method: POST, url: "${sink}", body: {index: "{{ chunk.index }}", rows: "{{ chunk.rows }}"}}
  - step: done
    tool: {kind: noop}
`;

/** A slow sink on loopback: it takes CONSUMER_MS per chunk and keeps what it was sent. */
function startSlowSink(): Promise<{ server: Server; url: string; received: { index: number; rows: { n: number }[] }[] }> {
  const received: { index: number; rows: { n: number }[] }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (part: Buffer) => (body += part.toString()));
    req.on('end', () => {
      setTimeout(() => {
        received.push(JSON.parse(body) as { index: number; rows: { n: number }[] });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }, CONSUMER_MS);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/chunk`, received }),
    ),
  );
}

/**
 * Backpressure for streamed results (issue 27 item 5): a postgres step
 * streams 20 chunks, each consumed by an `on: call.partial` step against a
 * sink that takes 120 ms. With NOETL_STREAM_MAX_PENDING_CHUNKS=3 the worker
 * reads no further while 3 chunks are unconsumed: sampled from the ledger
 * (chunks reported minus consumer runs ended) and as the worker saw them,
 * never more than 3 are in flight, though the consumers have 3 more slots
 * than that and the producer is far faster. Every chunk lands, in order.
 */
describe('backpressure of a streamed result', () => {
  let t: TestEngine;
  let sink: Awaited<ReturnType<typeof startSlowSink>>;

  beforeAll(async () => {
    sink = await startSlowSink();
    t = await startTestEngine({
      env: { NOETL_STREAM_MAX_PENDING_CHUNKS: String(MAX_PENDING), NOETL_WORKER_CONCURRENCY: '8', NOETL_TOOLS_LEDGER_ACCESS: 'allow' },
    });
    await t.engine.own.catalog.register(PLAYBOOK(t.testDatabase.url, sink.url));
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => sink?.server.close(resolve));
  });

  it(`keeps at most ${MAX_PENDING} chunks in flight against a slow consumer, and every chunk lands in order`, async () => {
    const { execution_id: executionId } = await t.engine.own.executions.start({ path: 'tests/backpressure' });
    const inFlight: number[] = [];
    let ended = false;
    const sampling = (async () => {
      while (!ended) {
        const [row] = await t.database.query<{ reported: number; consumed: number }>(
          `SELECT count(*) FILTER (WHERE event_type = $2)::int AS reported,
                  count(*) FILTER (WHERE event_type = $3 AND node_name = 'load_chunk')::int AS consumed
             FROM noetl.event WHERE execution_id = $1`,
          [executionId, EventType.CallPartial, EventType.StepExit],
        );
        inFlight.push(row!.reported - row!.consumed);
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    })();
    const detail = await t.engine.waitForTerminal(executionId, { timeoutMs: 45_000 });
    ended = true;
    await sampling;

    expect(detail.status).toBe('COMPLETED');
    expect(Math.max(...inFlight)).toBeLessThanOrEqual(MAX_PENDING);
    expect(Math.max(...inFlight)).toBeGreaterThan(1);
    const peak = await t.engine.metrics.registry.getSingleMetricAsString('noetl_stream_pending_chunks_max');
    expect(peak).toContain(`noetl_stream_pending_chunks_max ${MAX_PENDING}`);
    const waits = Number(
      /noetl_stream_backpressure_waits_total (\d+)/.exec(
        await t.engine.metrics.registry.getSingleMetricAsString('noetl_stream_backpressure_waits_total'),
      )?.[1],
    );
    expect(waits).toBeGreaterThan(0);

    // In order in the ledger, each exactly once, and each chunk's rows delivered whole to the sink.
    const partials = (await t.engine.own.executions.events(executionId, { type: [EventType.CallPartial], limit: 100 })).events;
    expect(partials.map((event) => (event.payload as { chunk_index: number }).chunk_index)).toEqual([...Array(CHUNKS).keys()]);
    await waitFor(async () => sink.received.length === CHUNKS || undefined);
    const byIndex = [...sink.received].sort((a, b) => a.index - b.index);
    expect(byIndex.map((chunk) => chunk.index)).toEqual([...Array(CHUNKS).keys()]);
    expect(byIndex.flatMap((chunk) => chunk.rows.map((row) => row.n))).toEqual(
      Array.from({ length: CHUNKS * CHUNK_ROWS }, (_, i) => i + 1),
    );
  });
});
