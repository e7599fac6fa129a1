import { parseOk, playbookText } from '../parse/testing/playbook-text';
import { loopBodySpec } from './loop-body-spec';
import { workToolKinds } from './work-tool-kinds';

const playbook = parseOk(
  playbookText(
    `
  - step: fetch
    tool:
      - name: get
        kind: http
        url: http://x
      - name: shape
        kind: python
        code: "result = 1"
    next: [{step: each}]
  - step: each
    loop: {in: "{{ [1, 2] }}", iterator: n}
    tool: {kind: javascript, code: "return n"}
    sink: {tool: postgres, connection: "postgres://x/y", table: out}
    next: [{step: drain}]
  - step: drain
    loop:
      cursor: {kind: postgres, connection: "postgres://x/y", claim: "SELECT 1 LIMIT {{ __frame_max_rows }}"}
      iterator: row
      spec: {mode: cursor}
    tool: {kind: noop}`,
  ),
);
const step = (name: string) => playbook.steps.find((candidate) => candidate.name === name)!;

describe('workToolKinds', () => {
  it('names every task kind of a pipeline', () => {
    expect(workToolKinds({ tool: { tasks: step('fetch').tool!.tasks as never, pipeline: true } })).toEqual(['http', 'python']);
  });

  it('adds postgres for a loop body whose table sink writes rows', () => {
    expect(workToolKinds(loopBodySpec(playbook, step('each')))).toEqual(['javascript', 'postgres']);
  });

  it("adds a cursor loop's claim kind", () => {
    expect(workToolKinds(loopBodySpec(playbook, step('drain')))).toEqual(['noop', 'postgres']);
  });

  it('names nothing for a routing step', () => {
    expect(workToolKinds({ tool: null })).toEqual([]);
  });
});
