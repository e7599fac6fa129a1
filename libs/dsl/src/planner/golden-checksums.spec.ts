import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalChecksum, checksumsOf, defaultUpcasters, EventType, foldEvents, type LedgerEvent } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

/**
 * Golden checksums (issue 10 item 5): a small fixed corpus of ledgers, made
 * by the planner exactly as the scheduler makes them, and the checksums of
 * their events and of the state they fold to. A change to the envelope, the
 * planner's decisions or the reducer that alters any of them fails here, so
 * it is made on purpose: bump REDUCER_VERSION (or add an upcaster) and
 * record the new values with `GOLDEN_CHECKSUMS=write npx jest golden-checksums`.
 */
const GOLDEN_FILE = join(__dirname, 'testing', 'golden-checksums.json');

const boom = { kind: 'code', message: 'ValueError: bad row' };

const corpus: Record<string, () => PlannerHarness> = {
  chain() {
    const h = new PlannerHarness(
      workflow(
        `
  - step: fetch
    tool: { kind: http, url: "http://example.test/{{ id }}" }
    next: transform
  - step: transform
    tool: { kind: javascript, code: "result = input.n * 2" }
    input: { n: "{{ fetch.data.n }}" }
    set: { ctx.doubled: "{{ transform }}" }
    next: store
  - step: store
    tool: { kind: noop }
`,
        'workload: { id: 7 }',
      ),
    ).start();
    h.complete('fetch', { status_code: 200, data: { n: 21 } });
    h.complete('transform', 42);
    h.complete('store', { stored: true });
    return h;
  },

  loopOfFrames() {
    const h = new PlannerHarness(
      workflow(
        `
  - step: score
    loop: { in: "{{ items }}", iterator: item, spec: { mode: parallel, max_in_flight: 2, frame: { max_rows: 2 } } }
    tool: { kind: javascript, code: "result = item * 10" }
    next:
      - step: report
        when: "{{ fanin.status == 'partial' }}"
  - step: report
    tool: { kind: noop }
`,
        'workload: { items: [1, 2, 3, 4, 5] }',
      ),
    ).start();
    h.commitFrame('score', 1, [30, { error: boom }], { firstIndex: 2 });
    h.commitFrame('score', 0, [10, 20], { byRef: true });
    h.commitFrame('score', 2, [50], { firstIndex: 4 });
    h.complete('report');
    return h;
  },

  retryThenSuccess() {
    const h = new PlannerHarness(
      workflow(`
  - step: call
    tool: { kind: http, url: "http://example.test/flaky" }
    retry:
      - when: "{{ error.retryable }}"
        then: { max_attempts: 3, initial_delay: 2, backoff_multiplier: 2, jitter: true }
`),
    ).start();
    h.fail('call', { kind: 'server_error', status: 503, message: 'unavailable', retryable: true });
    h.fireTimers();
    h.complete('call', { status_code: 200, data: 'ok' });
    return h;
  },

  fanoutWithRetries() {
    const h = new PlannerHarness(
      workflow(
        `
  - step: shards
    loop: { in: "{{ items }}", iterator: n, spec: { loop_mode: fanout, fanout: { max_shard_retries: 1 } } }
    tool: { kind: javascript, code: "result = n * 2" }
    next:
      - step: report
        when: "{{ fanin.status == 'partial' }}"
  - step: report
    tool: { kind: noop }
`,
        'workload: { items: [1, 2, 3] }',
      ),
    ).start();
    h.endShard('shards', 1, { error: boom });
    h.endShard('shards', 0, 2);
    h.endShard('shards', 1, 4);
    h.endShard('shards', 2, 'abandon');
    h.endShard('shards', 2, { error: boom });
    h.complete('report');
    return h;
  },

  streamedChunks() {
    const h = new PlannerHarness(
      workflow(`
  - step: read
    tool: { kind: postgres, auth: pg, query: "SELECT n FROM t ORDER BY n", stream: { chunk_rows: 2 } }
    next:
      - { step: each_chunk, on: call.partial }
  - step: each_chunk
    tool: { kind: noop }
`),
    ).start();
    h.partial('read', 0, [{ n: 1 }, { n: 2 }], true);
    h.partial('read', 1, [{ n: 3 }], false);
    h.complete('read', { row_count: 3, chunk_count: 2, rows: [] });
    for (const command of h.openCommands().filter((c) => c.step === 'each_chunk')) {
      h.append({
        type: EventType.CommandCompleted,
        executionId: h.executionId,
        commandId: command.commandId,
        step: 'each_chunk',
        payload: { result: {} },
      });
    }
    return h;
  },

  cancelled() {
    const h = new PlannerHarness(
      workflow(`
  - step: wait
    tool: { kind: sleep, seconds: 60 }
    next: after
  - step: after
    tool: { kind: noop }
`),
    ).start();
    h.cancel('operator asked');
    return h;
  },
};

interface Golden {
  /** sha256 of the events' own checksums, in ledger order. */
  events: string;
  event_count: number;
  /** The folded state's checksum per surface and for the whole. */
  state: Record<string, string>;
}

function goldenOf(events: readonly LedgerEvent[]): Golden {
  const state = foldEvents(events.map((event) => defaultUpcasters().upcast(event) as LedgerEvent));
  if (!state) throw new Error('the corpus ledger folded to nothing');
  return { events: canonicalChecksum(events.map((event) => event.checksum)), event_count: events.length, state: checksumsOf(state) };
}

describe('golden checksums of a fixed corpus', () => {
  const actual = Object.fromEntries(Object.entries(corpus).map(([name, run]) => [name, goldenOf(run().events)]));

  if (process.env.GOLDEN_CHECKSUMS === 'write') writeFileSync(GOLDEN_FILE, `${JSON.stringify(actual, null, 2)}\n`);
  const golden = JSON.parse(readFileSync(GOLDEN_FILE, 'utf8')) as Record<string, Golden>;

  it('covers every ledger of the corpus, and nothing else', () => {
    expect(Object.keys(golden).sort()).toEqual(Object.keys(corpus).sort());
  });

  it.each(Object.keys(corpus))('folds the %s ledger to the recorded event and state checksums', (name) => {
    expect(actual[name]).toEqual(golden[name]);
  });

  it('reaches a terminal state in every ledger of the corpus (the corpus exercises whole runs)', () => {
    const statuses = Object.values(corpus).map((run) => run().state.status);
    expect(statuses).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'CANCELLED']);
  });
});
