import { CallError, type Step } from '../model';
import { directRow } from './direct-row';
import { runFrame, type FrameArgs } from './run-frame';
import { fakeDeps, frameArgs, stepOf, type Script } from './testing/fake-deps';

/** Rows 1 and 3 succeed, 2 fails in the tool, 4 fails to render (`missing` is not in scope). */
const BODY = `
- step: each
  loop: {in: "{{ items }}", iterator: n}
  tool: {kind: javascript, code: "x", input: {n: "{{ n }}", i: "{{ iter._index }}", deep: "{{ n == 4 and missing.field }}"}}
`;
/** The same body, with a task policy that never matches: the general interpreter must run it. */
const UNDECIDED = `
- step: each
  loop: {in: "{{ items }}", iterator: n}
  tool:
    kind: javascript
    code: "x"
    input: {n: "{{ n }}", i: "{{ iter._index }}", deep: "{{ n == 4 and missing.field }}"}
    spec: {policy: {rules: [{when: "{{ false }}", then: {do: retry, attempts: 3}}]}}
`;

const script: Script = (_kind, config) => {
  const input = config['input'] as { n: number };
  if (input.n === 2) throw new CallError({ kind: 'code', message: 'two is refused', retryable: false });
  return { doubled: input.n * 2 };
};

/** The rows of a whole collection, two at a time. */
const whole = (step: Step, rows: unknown[]): FrameArgs => frameArgs(step, rows, { firstIndex: 0, total: rows.length, rowConcurrency: 2 });

describe('a loop body run as a direct call', () => {
  it('is taken only for one task with nothing to decide per row', () => {
    const deps = fakeDeps(script);
    expect(directRow(whole(stepOf(BODY), []), deps)).toBeDefined();
    expect(directRow(whole(stepOf(UNDECIDED), []), deps)).toBeUndefined();
    const retried = stepOf(`${BODY}  retry: [{when: "{{ error }}", then: {do: retry, attempts: 2}}]\n`);
    expect(directRow(whole(retried, []), deps)).toBeUndefined();
  });

  it('gives each row what the general interpreter gives it: results, tool errors, template errors and call records', async () => {
    const rows = [1, 2, 3, 4];
    const direct = await runFrame(whole(stepOf(BODY), rows), fakeDeps(script));
    const general = await runFrame(whole(stepOf(UNDECIDED), rows), fakeDeps(script));

    expect(direct.rows).toEqual(general.rows);
    expect(direct.rows.map((row) => row.status)).toEqual(['ok', 'error', 'ok', 'error']);
    expect(direct.rows[0]!.result).toEqual({ doubled: 2 });
    expect(direct.rows[1]!.error).toMatchObject({ kind: 'code', message: 'two is refused' });
    expect(direct.rows[3]!.error).toMatchObject({ kind: 'template' });
    expect(direct.ctx).toEqual(general.ctx);
    const shape = ({ durationMs: _duration, ...record }: { durationMs: number }) => record;
    expect(direct.calls.map(shape)).toEqual(general.calls.map(shape));
  });

  it('renders a config without templates against no scope, and calls with a copy of it per row', async () => {
    const seen: Record<string, unknown>[] = [];
    const deps = fakeDeps((_kind, config) => {
      seen.push(config);
      return 'done';
    });
    const step = stepOf(`
- step: each
  loop: {in: "{{ items }}", iterator: n}
  tool: {kind: noop, input: {fixed: 1}}
`);
    const run = await runFrame(whole(step, ['a', 'b']), deps);
    expect(run.rows.map((row) => row.result)).toEqual(['done', 'done']);
    expect(seen).toEqual([{ input: { fixed: 1 } }, { input: { fixed: 1 } }]);
    expect(seen[0]).not.toBe(seen[1]);
  });
});
