import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { executionSpanId, executionTraceId, stepRunSpanId } from '../../libs/runtime/src/tracing/trace-ids';
import { runCli, startCliServer, startRoleApp, type CliServerProcess } from '../support/cli-server-process';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { startOtlpCollector, type CollectedSpan, type OtlpCollector } from '../support/otlp-collector';
import { requireNats } from '../support/services';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { TEST_ENCRYPTION_KEY } from '../support/test-engine';
import { waitFor } from '../support/wait-for';

// Two process boots, a playbook run, and both processes stopped to flush their spans.
jest.setTimeout(90_000);

const PLAYBOOK = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: e2e_traced, path: e2e/traced}
workload: {items: [1, 2, 3]}
workflow:
  - step: start
    tool: {kind: javascript, input: {n: "{{ items | length }}"}, code: "return { n: n };"}
    next: square
  - step: square
    loop: {in: "{{ items }}", iterator: item}
    tool: {kind: javascript, input: {item: "{{ item }}"}, code: "return item * item;"}
    next: end
  - step: end
    tool: {kind: noop, input: {results: "{{ square.results }}"}}
`;

/**
 * Issue 26 item 17: with OTEL_* set, an execution is one trace across the
 * processes that touch it. Here `noetl server` (api, scheduler, projector)
 * plans it and a worker in a process of its own runs it; both export OTLP
 * JSON to a collector on loopback.
 */
describe('OpenTelemetry traces of an execution across processes', () => {
  let database: TestDatabase;
  let collector: OtlpCollector;
  let nats: NatsConnection;
  const processes: CliServerProcess[] = [];
  const offers: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const natsUrl = await requireNats();
    [database, collector, nats] = await Promise.all([createTestDatabase(), startOtlpCollector(), connect({ servers: natsUrl })]);
    const tenant = `t${randomBytes(4).toString('hex')}`;
    // A plain subscriber (no queue group) sees every offer the scheduler makes to the tenant's workers.
    // Nest's NATS client sends `{pattern, data}`: the offer is `data`.
    const codec = JSONCodec<{ data?: Record<string, unknown> }>();
    const subscription = nats.subscribe(`noetl.${tenant}.>`);
    void (async () => {
      for await (const message of subscription) {
        const offer = codec.decode(message.data).data ?? {};
        if ('command_id' in offer || 'stage_id' in offer) offers.push(offer);
      }
    })();
    const shared = {
      DATABASE_URL: database.url,
      NATS_URL: natsUrl,
      NOETL_TENANT_ID: tenant,
      NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    };
    const server = await startCliServer({ ...shared, NOETL_ROLES: 'api,scheduler,projector' });
    processes.push(server);
    const client = new NoetlHttpClient(server.url, server.apiKey);
    processes.push(
      await startRoleApp('worker', { ...shared, NOETL_SERVER_URL: server.url, NOETL_API_KEY: await client.createKey('worker') }),
    );
  });

  afterAll(async () => {
    for (const started of processes) await started.stop();
    await nats?.close();
    await Promise.all([database?.drop(), collector?.close()]);
  });

  it('is one trace: the execution, its steps, the worker commands and frames, and the api calls they made', async () => {
    const [server, worker] = processes as [CliServerProcess, CliServerProcess];
    const client = new NoetlHttpClient(server.url, server.apiKey);
    await client.register(PLAYBOOK);
    const id = await client.execute('e2e/traced');
    expect((await client.waitForTerminal(id, 30_000)).status).toBe('COMPLETED');
    // Stopped, each process sends what its exporter still buffers.
    await worker.stop();
    await server.stop();

    const traceId = executionTraceId(id);
    const spans = collector.spans().filter((span) => span.traceId === traceId);
    const ofExecution = collector.spans().filter((span) => span.attributes['execution_id'] === id);
    expect(ofExecution.every((span) => span.traceId === traceId)).toBe(true);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parentOf = (span: CollectedSpan): CollectedSpan | undefined => byId.get(span.parentSpanId);

    // The root: the execution, recorded by the scheduler with the id every process derives.
    const roots = spans.filter((span) => span.parentSpanId === '');
    expect(roots.map((span) => [span.name, span.spanId, span.pid, span.attributes['outcome']])).toEqual([
      ['execution e2e/traced', executionSpanId(id), server.pid, 'COMPLETED'],
    ]);

    // One span per step run, children of the root, in the order they ran.
    const steps = spans.filter((span) => span.name.startsWith('step ')).sort((a, b) => Number(a.startNanos - b.startNanos));
    expect(steps.map((span) => [span.name, span.attributes['outcome'], parentOf(span)?.name])).toEqual([
      ['step start', 'COMPLETED', 'execution e2e/traced'],
      ['step square', 'COMPLETED', 'execution e2e/traced'],
      ['step end', 'COMPLETED', 'execution e2e/traced'],
    ]);
    for (const step of steps) expect(step.spanId).toBe(stepRunSpanId(String(step.attributes['run_id'])));

    // The worker's spans, in its own process: a command per plain step, a frame for the loop, each under its step.
    const commands = spans.filter((span) => span.name.startsWith('command '));
    expect(commands.map((span) => [span.name, parentOf(span)?.name, span.pid]).sort()).toEqual([
      ['command javascript', 'step start', worker.pid],
      ['command noop', 'step end', worker.pid],
    ]);
    for (const command of commands) {
      expect(command.attributes).toEqual(
        expect.objectContaining({
          execution_id: id,
          command_id: expect.any(String),
          attempt: 1,
          worker_id: expect.any(String),
          tool_kind: expect.any(String),
          outcome: 'COMPLETED',
        }),
      );
    }
    const frames = spans.filter((span) => span.name === 'frame');
    expect(frames.length).toBeGreaterThanOrEqual(1);
    expect(frames.map((span) => [parentOf(span)?.name, span.pid, span.attributes['outcome']])).toEqual(
      frames.map(() => ['step square', worker.pid, 'COMMITTED']),
    );

    // The worker's calls to the api carried W3C traceparent: the api's request spans are children of the command or frame span.
    const completions = spans.filter((span) => span.name === 'POST /api/commands/:id/complete');
    expect(completions.map((span) => [parentOf(span)?.name, span.pid]).sort()).toEqual([
      ['command javascript', server.pid],
      ['command noop', server.pid],
    ]);
    expect(spans.filter((span) => span.name === 'POST /api/frames/:id/commit').map((span) => parentOf(span)?.name)).toEqual(
      frames.map(() => 'frame'),
    );

    // The offers on NATS carried the trace to the worker: a command's, its step run's context; a stage's, at least the execution's trace.
    await waitFor(async () => offers.length > 0, { timeoutMs: 5_000, intervalMs: 50, description: 'the offers seen on NATS' });
    const offered = offers.filter((offer) => offer['execution_id'] === id);
    const stepSpanIds = steps.map((span) => span.spanId).join('|');
    const commandOffers = offered.filter((offer) => 'command_id' in offer);
    expect(commandOffers.length).toBeGreaterThanOrEqual(2);
    for (const offer of commandOffers) expect(offer['traceparent']).toMatch(new RegExp(`^00-${traceId}-(${stepSpanIds})-01$`));
    const stageOffers = offered.filter((offer) => 'stage_id' in offer);
    expect(stageOffers.length).toBeGreaterThanOrEqual(1);
    for (const offer of stageOffers) expect(offer['traceparent']).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });

  it('noetl run with OTEL_* set sends the same trace from its one process before it exits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'noetl-traces-'));
    try {
      writeFileSync(join(dir, 'traced.yaml'), PLAYBOOK);
      const run = await runCli(['run', join(dir, 'traced.yaml'), '--output', 'json'], {
        DATABASE_URL: database.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'noetl-run-e2e',
      });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const id = (JSON.parse(run.stdout) as { execution_id: string }).execution_id;
      const spans = collector.spans().filter((span) => span.traceId === executionTraceId(id));
      expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['noetl-run-e2e']));
      const names = spans.map((span) => span.name);
      expect(names.filter((name) => !name.startsWith('frame')).sort()).toEqual([
        'command javascript',
        'command noop',
        'execution e2e/traced',
        'step end',
        'step square',
        'step start',
      ]);
      expect(names).toContain('frame');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
