import { EventType, LIST_PARTS_MEDIA_TYPE, LOOP_RESULT_MEDIA_TYPE } from '@noetl/event-kernel';
import type { ClaimedFrame } from '@noetl/runtime';
import { Client } from 'pg';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';

const LOOP = (path: string, mode: string, maxRows: number, extra = '') => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: loop, path: ${path}}
workload: {numbers: [1, 2, 3, 4, 5, 6, 7]}
workflow:
  - step: start
    tool: {kind: noop}
    next: [{step: square}]
  - step: square
    loop:
      in: "{{ numbers }}"
      iterator: n
      spec: {mode: ${mode}, max_in_flight: 3, frame: {max_rows: ${maxRows}}}
    tool: {kind: javascript, code: "${extra}return {sq: input.n * input.n, index: input.i}", input: {n: "{{ n }}", i: "{{ iter._index }}"}}
    next: [{step: end}]
  - step: end
    tool: {kind: javascript, code: "return {results: input.r, stats: input.s}", input: {r: "{{ square.results }}", s: "{{ square.stats }}"}}
`;

jest.setTimeout(60_000);

describe('loops as stages of frames', () => {
  let t: TestEngine;
  beforeAll(async () => {
    // Rows from index 1,000 on commit their results by ref (default 10,000), so a few thousand items show a large loop's shape.
    t = await startTestEngine({ env: { NOETL_WORKER_CONCURRENCY: '20', NOETL_LOOP_INLINE_RESULTS: '1000' } });
  });
  afterAll(async () => t?.close());

  it.each([
    ['sequential', 1],
    ['parallel', 1],
    ['parallel', 3],
  ])('runs a %s loop with frames of %i rows, results in collection order', async (mode, maxRows) => {
    const path = `tests/loop-${mode}-${maxRows}`;
    await t.engine.own.catalog.register(LOOP(path, mode, maxRows));
    const { execution_id } = await t.engine.own.executions.start({ path });
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 30_000 });
    const events = await t.engine.own.executions.events(execution_id, { limit: 1000 });
    expect(detail.status).toBe('COMPLETED');
    expect(detail.result).toEqual({
      results: [1, 2, 3, 4, 5, 6, 7].map((n, i) => ({ sq: n * n, index: i })),
      stats: { total: 7, succeeded: 7, success: 7, failed: 0 },
    });
    const committed = events.events.filter((e) => e.event_type === EventType.FrameCommitted);
    expect(committed).toHaveLength(Math.ceil(7 / maxRows));
    expect(events.events.filter((e) => e.event_type === EventType.LoopDone)).toHaveLength(1);
    expect(detail.loops).toEqual([expect.objectContaining({ step: 'square', total: 7, done: 7, failed: 0, completed: true })]);
  });

  it('stores a large collection by reference and still returns every result in order', async () => {
    await t.engine.own.catalog.register(`
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: big, path: tests/loop-big}
workflow:
  - step: start
    tool: {kind: javascript, code: "return {items: Array.from({length: 3000}, (_, i) => ({id: i, pad: 'x'.repeat(40)}))}"}
    next: [{step: each}]
  - step: each
    loop: {in: "{{ start.items }}", iterator: item, spec: {mode: parallel, max_in_flight: 4, frame: {max_rows: 500}}}
    tool: {kind: javascript, code: "return input.id", input: {id: "{{ item.id }}"}}
    next: [{step: end}]
  - step: end
    tool: {kind: javascript, code: "return {n: input.r.length, ordered: input.r.every((v, i) => v === i)}", input: {r: "{{ each.results }}"}}
`);
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/loop-big' });
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 60_000 });
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { n: 3000, ordered: true } });
    const [started] = (await t.engine.own.executions.events(execution_id, { type: [EventType.LoopStarted] })).events;
    // Over NOETL_COLLECTION_OFFLOAD_ITEMS (1,000): the collection is stored in parts, which each frame reads its rows from.
    expect(started?.payload).toMatchObject({ size: 3000, collection_ref: { media_type: LIST_PARTS_MEDIA_TYPE } });
    expect(started?.payload).not.toHaveProperty('collection');
    const committed = (await t.engine.own.executions.events(execution_id, { type: [EventType.FrameCommitted] })).events;
    expect(committed).toHaveLength(6);
    // The first 1,000 rows' small results stay inline (the event holds every row's outcome); the later frames' go to the payload store.
    for (const event of committed) {
      const { first_index: first } = event.payload as { first_index: number };
      if (first < 1000) {
        expect((event.payload as { results?: unknown[] }).results).toHaveLength(500);
        expect(event.payload).not.toHaveProperty('output_ref');
      } else expect(event.payload).toMatchObject({ output_ref: { rows: 500 } });
    }
  }, 60_000);

  it('closes a large loop no template reads lean: its result is a manifest of the frame outputs, which a reader gets whole', async () => {
    await t.engine.own.catalog.register(`
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: lean, path: tests/loop-lean}
workload: {count: 2500}
workflow:
  - step: each
    loop: {in: "{{ range(0, count) }}", iterator: item, spec: {mode: parallel, max_in_flight: 4, frame: {max_rows: 300}}}
    tool: {kind: javascript, code: "return input.i * 2", input: {i: "{{ item }}"}}
`);
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/loop-lean' });
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 60_000 });
    expect(detail.status).toBe('COMPLETED');
    expect(detail.result).toEqual({
      results: Array.from({ length: 2500 }, (_, i) => i * 2),
      stats: { total: 2500, succeeded: 2500, success: 2500, failed: 0 },
    });
    const [done] = (await t.engine.own.executions.events(execution_id, { type: [EventType.LoopDone] })).events;
    expect(done?.payload).toMatchObject({ total: 2500, result_ref: { media_type: LOOP_RESULT_MEDIA_TYPE } });
    expect(done?.payload).not.toHaveProperty('results');
    const [exit] = (await t.engine.own.executions.events(execution_id, { type: [EventType.StepExit] })).events;
    expect(exit?.payload).toMatchObject({ result_ref: (done?.payload as { result_ref: object }).result_ref });
  }, 60_000);

  it("stores a frame's rows as Arrow in the payload store when their results do not fit inline, and still returns every result", async () => {
    await t.engine.own.catalog.register(`
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: wide, path: tests/loop-wide-results}
workflow:
  - step: each
    loop: {in: "{{ range(40) | list }}", iterator: item, spec: {mode: parallel, max_in_flight: 2, frame: {max_rows: 20}}}
    tool: {kind: javascript, code: "return {i: input.i, pad: 'x'.repeat(4000)}", input: {i: "{{ item }}"}}
    next: [{step: end}]
  - step: end
    tool: {kind: javascript, code: "return {n: input.r.length, ordered: input.r.every((v, i) => v.i === i)}", input: {r: "{{ each.results }}"}}
`);
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/loop-wide-results' });
    expect(await t.engine.waitForTerminal(execution_id, { timeoutMs: 60_000 })).toMatchObject({
      status: 'COMPLETED',
      result: { n: 40, ordered: true },
    });
    const committed = (await t.engine.own.executions.events(execution_id, { type: [EventType.FrameCommitted] })).events;
    expect(committed).toHaveLength(2);
    for (const event of committed) {
      expect(event.payload).toMatchObject({ output_ref: { media_type: 'application/vnd.apache.arrow.stream', rows: 20 } });
      expect(event.payload).not.toHaveProperty('results');
    }
  }, 60_000);

  it('commits 20 frames concurrently and closes the loop exactly once', async () => {
    await t.engine.own.catalog.register(
      LOOP('tests/loop-twenty', 'parallel', 1)
        .replace('max_in_flight: 3', 'max_in_flight: 20')
        .replace('[1, 2, 3, 4, 5, 6, 7]', `[${Array.from({ length: 20 }, (_, i) => i + 1).join(', ')}]`),
    );
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/loop-twenty' });
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 30_000 });
    expect(detail.status).toBe('COMPLETED');
    expect((await t.engine.own.executions.events(execution_id, { type: [EventType.FrameCommitted] })).events).toHaveLength(20);
    expect((await t.engine.own.executions.events(execution_id, { type: [EventType.LoopDone] })).events).toHaveLength(1);
    expect((detail.result as { results: unknown[] }).results).toHaveLength(20);
  });

  it('routes a partial loop on fanin.status and keeps the failed rows in its stats', async () => {
    await t.engine.own.catalog.register(`
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: partial, path: tests/loop-partial}
workload: {numbers: [1, 2, 3, 4, 5]}
workflow:
  - step: start
    tool: {kind: noop}
    next: [{step: each}]
  - step: each
    loop: {in: "{{ numbers }}", iterator: n, spec: {mode: parallel, max_in_flight: 5}}
    tool: {kind: javascript, code: "if (input.n % 2 === 0) throw new Error('even ' + input.n); return input.n", input: {n: "{{ n }}"}}
    next:
      - step: partial
        when: "{{ fanin.status == 'partial' }}"
        set: {ctx.failed: "{{ fanin.failed }}"}
      - step: complete
  - step: partial
    tool: {kind: javascript, code: "return {stats: input.s, failed: input.f}", input: {s: "{{ each.stats }}", f: "{{ ctx.failed }}"}}
  - step: complete
    tool: {kind: noop}
`);
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/loop-partial' });
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 30_000 });
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { stats: { total: 5, succeeded: 3, failed: 2 }, failed: 2 } });
    expect(detail.steps.map((step) => step.step)).not.toContain('complete');
  });

  it('opens a new epoch with its own loop id when a loop step is re-entered', async () => {
    await t.engine.own.catalog.register(`
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: epochs, path: tests/loop-epochs}
workload: {numbers: [1, 2]}
workflow:
  - step: start
    tool: {kind: noop}
    set: {ctx.round: 0}
    next: [{step: each}]
  - step: each
    loop: {in: "{{ numbers }}", iterator: n}
    tool: {kind: javascript, code: "return input.n * 10 + input.r", input: {n: "{{ n }}", r: "{{ ctx.round }}"}}
    next: [{step: count}]
  - step: count
    tool: {kind: noop}
    set: {ctx.round: "{{ ctx.round + 1 }}"}
    next:
      - step: each
        when: "{{ ctx.round < 2 }}"
      - step: end
  - step: end
    tool: {kind: javascript, code: "return input.r", input: {r: "{{ each.results }}"}}
`);
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/loop-epochs' });
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 30_000 });
    expect(detail).toMatchObject({ status: 'COMPLETED', result: [11, 21] });
    const started = (await t.engine.own.executions.events(execution_id, { type: [EventType.LoopStarted] })).events;
    expect(started.map((event) => (event.payload as { epoch: number }).epoch)).toEqual([1, 2]);
    expect(new Set(started.map((event) => event.loop_id)).size).toBe(2);
  });
  it('runs a playbook call inside a loop body pipeline: the worker waits for each child and reads its return_step', async () => {
    await t.engine.own.catalog.register(`
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: double, path: tests/child-double}
workload: {n: 0}
workflow:
  - step: start
    tool: {kind: javascript, code: "return {doubled: input.n * 2}", input: {n: "{{ n }}"}}
    next: [{step: end}]
  - step: end
    tool: {kind: javascript, code: "return {final: input.d}", input: {d: "{{ start.doubled }}"}}
`);
    await t.engine.own.catalog.register(`
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: nested, path: tests/loop-nested-child}
workload: {numbers: [1, 2, 3]}
workflow:
  - step: start
    tool: {kind: noop}
    next: [{step: each}]
  - step: each
    loop: {in: "{{ numbers }}", iterator: n, spec: {mode: parallel, max_in_flight: 3}}
    tool:
      - name: call
        kind: playbook
        path: tests/child-double
        return_step: end
        input: {n: "{{ n }}"}
      - name: plus_one
        kind: javascript
        code: "return input.c.final + 1"
        input: {c: "{{ call }}"}
`);
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/loop-nested-child' });
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 30_000 });
    expect(detail.status).toBe('COMPLETED');
    const results = (detail.result as { results: { plus_one: number }[] }).results;
    expect(results.map((result) => result.plus_one)).toEqual([3, 5, 7]);
    const children = await t.engine.own.executions.list({ path: 'tests/child-double' });
    expect(children.executions.filter((child) => child.parent_execution_id === execution_id)).toHaveLength(3);
  });
});

/** A scheduler alone: the spec plays the worker, so it can let a lease run out. */
describe('frame leases', () => {
  let p: TestEngine;

  beforeAll(async () => {
    p = await startTestEngine({ roles: ['scheduler'], env: { NOETL_SWEEP_MS: '600000' } });
    await p.engine.own.catalog.register(LOOP('tests/loop-lease', 'sequential', 2));
  });
  afterAll(async () => p?.close());

  /** Runs the `start` command as a worker would, then waits for the loop's stage. */
  async function stageOf(executionId: string): Promise<string> {
    const start = await waitFor(
      async () =>
        (await p.engine.own.executions.events(executionId, { type: [EventType.CommandIssued] })).events[0]?.command_id ?? undefined,
    );
    const { lease_token } = await p.engine.own.controlPlane.claim(start, { worker_id: 'w0' });
    await p.engine.own.controlPlane.complete(start, { worker_id: 'w0', lease_token, result: {} });
    return waitFor(async () => {
      const [opened] = (await p.engine.own.executions.events(executionId, { type: [EventType.StageOpened] })).events;
      return (opened?.payload as { stage_id?: string } | undefined)?.stage_id;
    });
  }

  it('abandons a frame whose lease ran out, gives it whole to the next worker, and refuses the late commit', async () => {
    const { execution_id } = await p.engine.own.executions.start({ path: 'tests/loop-lease' });
    const stageId = await stageOf(execution_id);
    const lost = await p.engine.own.controlPlane.claimFrame(stageId, { worker_id: 'w1', lease_ms: 1 });
    expect(lost).toMatchObject({ frame_index: 0, rows: [1, 2], first_index: 0, total: 7 });
    // Sequential: nothing else is claimable while frame 0 is out.
    await expect(p.engine.own.controlPlane.claimFrame(stageId, { worker_id: 'w2' })).resolves.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await p.engine.sweep();
    const retaken = await p.engine.own.controlPlane.claimFrame(stageId, { worker_id: 'w2' });
    expect(retaken).toMatchObject({ frame_id: lost!.frame_id, attempt: 2, rows: [1, 2] });

    const before = (await p.engine.own.executions.events(execution_id, { limit: 1000 })).events.length;
    const late = p.engine.own.controlPlane.commitFrame(lost!.frame_id, {
      worker_id: 'w1',
      lease_token: lost!.lease_token,
      rows: [{ index: 0, status: 'ok', result: 1 }],
    });
    await expect(late).rejects.toMatchObject({ code: 'already_terminal' });
    expect((await p.engine.own.executions.events(execution_id, { limit: 1000 })).events).toHaveLength(before);

    const commit = (frame: { frame_id: string; lease_token: string; rows: unknown[]; first_index: number }, worker: string) =>
      p.engine.own.controlPlane.commitFrame(frame.frame_id, {
        worker_id: worker,
        lease_token: frame.lease_token,
        rows: frame.rows.map((n, i) => ({
          index: frame.first_index + i,
          status: 'ok' as const,
          result: { sq: (n as number) ** 2, index: frame.first_index + i },
        })),
      });
    await commit(retaken!, 'w2');
    await expect(commit(retaken!, 'w2')).rejects.toMatchObject({ code: 'already_terminal' });
    for (let index = 1; index < 4; index++) {
      const frame = await p.engine.own.controlPlane.claimFrame(stageId, { worker_id: 'w2' });
      expect(frame?.frame_index).toBe(index);
      await commit(frame!, 'w2');
    }
    const abandoned = (await p.engine.own.executions.events(execution_id, { type: [EventType.FrameAbandoned] })).events;
    expect(abandoned.map((event) => event.frame_id)).toEqual([lost!.frame_id]);
    const commits = (await p.engine.own.executions.events(execution_id, { type: [EventType.FrameCommitted] })).events;
    expect(commits).toHaveLength(4);
    expect(commits.filter((event) => event.frame_id === lost!.frame_id)).toHaveLength(1);
    const done = await waitFor(
      async () => (await p.engine.own.executions.events(execution_id, { type: [EventType.LoopDone] })).events[0] ?? undefined,
    );
    expect(done.payload).toMatchObject({ total: 7, succeeded: 7, failed: 0 });
  });

  it('claims the frames that workers ask for at once together, in one transaction, and refuses only the claim that does not fit', async () => {
    await p.engine.own.catalog.register(LOOP('tests/loop-claims', 'parallel', 1).replace('max_in_flight: 3', 'max_in_flight: 7'));
    const { execution_id } = await p.engine.own.executions.start({ path: 'tests/loop-claims' });
    const stageId = await stageOf(execution_id);
    const claim = (workerId: string, pool?: string) =>
      p.engine.own.controlPlane.claimFrame(stageId, { worker_id: workerId, ...(pool ? { pool } : {}) }).then(
        (frame) => frame?.frame_index,
        (error: { code?: string }) => error.code,
      );
    // The first claim goes alone; the six that arrive while it is in flight wait and go in the next transaction.
    const together = await Promise.all(['w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6'].map((workerId) => claim(workerId)));
    expect([...together].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const dispatched = (await p.engine.own.executions.events(execution_id, { type: [EventType.FrameDispatched] })).events;
    expect(dispatched).toHaveLength(7);
    const transactions = await p.database.query<{ tx: string }>(
      `SELECT DISTINCT tx::text FROM noetl.event WHERE event_id = ANY($1::bigint[])`,
      [dispatched.map((event) => event.event_id)],
    );
    expect(transactions).toHaveLength(2);

    // A claim the stage refuses, queued with one it takes: the batch is tried one claim at a time, and only the misfit fails.
    const second = await p.engine.own.executions.start({ path: 'tests/loop-claims' });
    const secondStage = await stageOf(second.execution_id);
    const claimSecond = (workerId: string, pool?: string) =>
      p.engine.own.controlPlane.claimFrame(secondStage, { worker_id: workerId, ...(pool ? { pool } : {}) }).then(
        (frame) => frame?.frame_index,
        (error: { code?: string }) => error.code,
      );
    expect(await Promise.all([claimSecond('first'), claimSecond('intruder', 'gpu'), claimSecond('plain')])).toEqual([0, 'wrong_pool', 1]);
  });

  it("commits the frames that wait for their execution's lock together, in one transaction, and refuses only the commit whose lease is lost", async () => {
    await p.engine.own.catalog.register(LOOP('tests/loop-batched', 'parallel', 1).replace('max_in_flight: 3', 'max_in_flight: 7'));
    const { execution_id } = await p.engine.own.executions.start({ path: 'tests/loop-batched' });
    const stageId = await stageOf(execution_id);
    const frames: ClaimedFrame[] = [];
    for (let i = 0; i < 7; i++) frames.push((await p.engine.own.controlPlane.claimFrame(stageId, { worker_id: `w${i}` }))!);
    const commit = (frame: ClaimedFrame, i: number, token = frame.lease_token) =>
      p.engine.own.controlPlane.commitFrame(frame.frame_id, {
        worker_id: `w${i}`,
        lease_token: token,
        rows: [{ index: frame.first_index, status: 'ok', result: { sq: frame.first_index } }],
      });

    // Another transaction holds the execution's lock while the seven commits arrive: the first waits for it, the rest queue behind.
    const holder = new Client({ connectionString: p.testDatabase.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`execution/${execution_id}`]);
      const outcomes = frames.map((frame, i) =>
        commit(frame, i, i === 6 ? 'not-the-token' : frame.lease_token).then(
          () => 'committed',
          (error: { code?: string }) => error.code,
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.query('COMMIT');
      expect(await Promise.all(outcomes)).toEqual([...Array(6).fill('committed'), 'already_terminal']);
    } finally {
      await holder.end();
    }
    const committed = (await p.engine.own.executions.events(execution_id, { type: [EventType.FrameCommitted] })).events;
    expect(committed).toHaveLength(6);
    const transactions = await p.database.query<{ tx: string }>(
      `SELECT DISTINCT tx::text FROM noetl.event WHERE event_id = ANY($1::bigint[])`,
      [committed.map((event) => event.event_id)],
    );
    expect(transactions).toHaveLength(2);
  });
});
