import { CallError } from '../model';
import { runFrame } from './run-frame';
import { fakeDeps, frameArgs, stepOf } from './testing/fake-deps';

const BODY = `
- step: each
  loop: {in: "{{ items }}", iterator: n}
  tool: {kind: javascript, code: "x", input: {n: "{{ n }}", i: "{{ iter._index }}", first: "{{ iter._first }}", len: "{{ loop.length }}"}}
`;

describe('runFrame', () => {
  it('runs the body once per row with the iteration in scope, results in row order', async () => {
    const deps = fakeDeps((_kind, config) => config['input']);
    const run = await runFrame(frameArgs(stepOf(BODY), [3, 4]), deps);
    expect(run.rows).toEqual([
      { index: 10, status: 'ok', result: { n: 3, i: 10, first: false, len: 20 } },
      { index: 11, status: 'ok', result: { n: 4, i: 11, first: false, len: 20 } },
    ]);
  });

  it('lets the process run its other work between rows once a turn has run long, and gives the same results', async () => {
    // Each fake call takes 5 ms of the fake clock: a turn is over after every row.
    const turns: number[] = [];
    const deps = { ...fakeDeps((_kind, config) => config['input']), yieldTurn: async () => void turns.push(deps.calls.length) };
    const run = await runFrame(frameArgs(stepOf(BODY), [3, 4, 5]), deps);
    expect(run.rows.map((row) => row.result)).toEqual([3, 4, 5].map((n, i) => ({ n, i: 10 + i, first: false, len: 20 })));
    expect(turns).toEqual([1, 2]);
  });

  it("cancels every call in flight on the frame's signal at once, tools that ignore it included", async () => {
    const controller = new AbortController();
    let started = 0;
    const deps = fakeDeps(() => {
      if (++started === 3) setTimeout(() => controller.abort(), 1);
      return new Promise(() => undefined);
    });
    const run = await runFrame(frameArgs(stepOf(BODY), [1, 2, 3], { rowConcurrency: 3, signal: controller.signal }), deps);
    expect(run.rows.map((row) => row.error?.kind)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });

  it('keeps a record of each call only when asked (a shard reports them; a frame does not)', async () => {
    const deps = fakeDeps(() => 'ok');
    expect((await runFrame(frameArgs(stepOf(BODY), [3, 4]), deps)).calls).toMatchObject([{ status: 'ok' }, { status: 'ok' }]);
    const unrecorded = await runFrame(frameArgs(stepOf(BODY), [3, 4], { recordCalls: false }), deps);
    expect(unrecorded.calls).toEqual([]);
    expect(unrecorded.rows.map((row) => row.status)).toEqual(['ok', 'ok']);
  });

  it('retries a failing row in process by the step retry policy, then records it failed when attempts run out', async () => {
    const deps = fakeDeps((_kind, config) => {
      if ((config['input'] as { n: number }).n === 4)
        throw new CallError({ kind: 'server_error', message: 'HTTP 503', retryable: true, status: 503 });
      return 'ok';
    });
    const step = stepOf(`${BODY}  retry: {when: "{{ error.retryable }}", then: {max_attempts: 3, initial_delay: 0.01}}\n`);
    const run = await runFrame(frameArgs(step, [3, 4]), deps);
    expect(run.rows.map((row) => [row.index, row.status])).toEqual([
      [10, 'ok'],
      [11, 'error'],
    ]);
    expect(run.rows[1]?.error).toMatchObject({ kind: 'server_error', status: 503 });
    expect(deps.calls.filter((call) => (call.config['input'] as { n: number }).n === 4)).toHaveLength(3);
  });

  it('process: frame runs the body once with frame.rows and gives each row its result', async () => {
    const deps = fakeDeps((_kind, config) => (config['input'] as { rows: number[] }).rows.map((n) => n * 2));
    const step = stepOf(`
- step: each
  loop: {in: "{{ items }}", iterator: n}
  tool: {kind: javascript, code: "x", input: {rows: "{{ frame.rows }}"}}
`);
    const run = await runFrame(frameArgs(step, [1, 2, 3], { process: 'frame' }), deps);
    expect(deps.calls).toHaveLength(1);
    expect(run.rows).toEqual([
      { index: 10, status: 'ok', result: 2 },
      { index: 11, status: 'ok', result: 4 },
      { index: 12, status: 'ok', result: 6 },
    ]);
  });

  it('process: frame gives each row the item of a pipeline whose last task returned one per row', async () => {
    const deps = fakeDeps((_kind, config) => {
      const input = config['input'] as { rows?: number[]; ids?: number[] };
      return input.rows ? { ids: input.rows.map((n) => n + 100) } : (input.ids ?? []).map((id) => ({ id }));
    });
    const step = stepOf(`
- step: each
  loop: {in: "{{ items }}", iterator: n}
  tool:
    - {name: fetch, kind: javascript, code: "x", input: {rows: "{{ frame.rows }}"}}
    - {name: shape, kind: javascript, code: "x", input: {ids: "{{ fetch.ids }}"}}
`);
    const run = await runFrame(frameArgs(step, [1, 2], { process: 'frame' }), deps);
    expect(run.rows).toEqual([
      { index: 10, status: 'ok', result: { id: 101 } },
      { index: 11, status: 'ok', result: { id: 102 } },
    ]);
  });

  it('process: frame gives every row the whole result when it is not one item per row', async () => {
    const deps = fakeDeps(() => ({ total: 3 }));
    const step = stepOf(`
- step: each
  loop: {in: "{{ items }}", iterator: n}
  tool: {kind: javascript, code: "x"}
`);
    const run = await runFrame(frameArgs(step, [1, 2], { process: 'frame' }), deps);
    expect(run.rows.map((row) => row.result)).toEqual([{ total: 3 }, { total: 3 }]);
    const short = await runFrame(
      frameArgs(step, [1, 2, 3], { process: 'frame' }),
      fakeDeps(() => [1, 2]),
    );
    expect(short.rows.map((row) => row.result)).toEqual([
      [1, 2],
      [1, 2],
      [1, 2],
    ]);
  });

  it('process: frame with a table sink writes one row per item of the body result, in one statement', async () => {
    const deps = fakeDeps((kind, config) =>
      kind === 'postgres' ? { row_count: 2 } : (config['input'] as { rows: number[] }).rows.map((n) => ({ n })),
    );
    const step = stepOf(`
- step: each
  loop:
    in: "{{ items }}"
    iterator: n
    sink: {tool: {kind: postgres, auth: pg, table: t}}
  tool: {kind: javascript, code: "x", input: {rows: "{{ frame.rows }}"}}
`);
    const run = await runFrame(frameArgs(step, [1, 2], { process: 'frame' }), deps);
    expect(run.rows.map((row) => row.status)).toEqual(['ok', 'ok']);
    expect(deps.calls.filter((call) => call.kind === 'postgres').map((call) => call.config['params'])).toEqual([['[{"n":1},{"n":2}]']]);
  });

  it('fails a row whose per-iteration sink fails', async () => {
    const deps = fakeDeps((kind) => {
      if (kind === 'postgres') throw new CallError({ kind: 'db', message: 'relation "t" does not exist', retryable: false });
      return { v: 1 };
    });
    const step = stepOf(`
- step: each
  loop:
    in: "{{ items }}"
    iterator: n
    sink: {tool: {kind: postgres, auth: pg, command: "INSERT INTO t VALUES (1)"}}
  tool: {kind: javascript, code: "x"}
`);
    const run = await runFrame(frameArgs(step, [1]), deps);
    expect(run.rows).toEqual([{ index: 10, status: 'error', error: expect.objectContaining({ kind: 'db' }) }]);
  });

  it('retries a sink that failed on a transient error by the step retry policy, without calling again', async () => {
    let writes = 0;
    const deps = fakeDeps((kind) => {
      if (kind === 'postgres' && ++writes <= 2)
        throw new CallError({ kind: 'connection', message: 'the database system is shutting down', retryable: true });
      return { v: 1 };
    });
    const step = stepOf(`
- step: each
  loop:
    in: "{{ items }}"
    iterator: n
    sink: {tool: {kind: postgres, auth: pg, command: "INSERT INTO t VALUES (1)"}}
  tool: {kind: javascript, code: "x"}
  retry: {when: "{{ error.retryable }}", then: {max_attempts: 3, initial_delay: 0.01}}
`);
    const run = await runFrame(frameArgs(step, [1]), deps);
    expect(run.rows).toEqual([{ index: 10, status: 'ok', result: { v: 1 } }]);
    expect(deps.calls.map((call) => call.kind)).toEqual(['javascript', 'postgres', 'postgres', 'postgres']);
  });

  it("fails the row when its sink keeps failing past the policy's attempts", async () => {
    const deps = fakeDeps((kind) => {
      if (kind === 'postgres') throw new CallError({ kind: 'connection', message: 'connection refused', retryable: true });
      return { v: 1 };
    });
    const step = stepOf(`
- step: each
  loop:
    in: "{{ items }}"
    iterator: n
    sink: {tool: {kind: postgres, auth: pg, command: "INSERT INTO t VALUES (1)"}}
  tool: {kind: javascript, code: "x"}
  retry: {when: "{{ error.retryable }}", then: {max_attempts: 3, initial_delay: 0.01}}
`);
    const run = await runFrame(frameArgs(step, [1]), deps);
    expect(run.rows).toEqual([{ index: 10, status: 'error', error: expect.objectContaining({ kind: 'connection' }) }]);
    expect(deps.calls.filter((call) => call.kind === 'postgres')).toHaveLength(3);
  });
});
