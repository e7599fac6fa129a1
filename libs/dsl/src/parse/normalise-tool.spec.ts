import { playbookText, problemsOf, stepsOf } from './testing/playbook-text';

describe('tools', () => {
  it('reports an unknown tool kind in a pipeline at its kind', () => {
    const text = playbookText(`
      - step: start
        tool:
          - {name: a, kind: noop}
          - name: b
            kind: htp`);
    expect(problemsOf(text)).toEqual([
      { path: 'workflow[0].tool[1].kind', line: 10, column: 13, message: 'unknown tool kind "htp" (did you mean "http"?)' },
    ]);
  });

  it("reports an unknown bare kind at the step's tool key", () => {
    expect(problemsOf(playbookText('- step: start\n  tool: duckdb\n  query: "SELECT 1"'))).toEqual([
      { path: 'workflow[0].tool', line: 7, column: 9, message: 'unknown tool kind "duckdb"' },
    ]);
  });

  it.each([
    ['http', '{kind: http, method: GET}', 'http tool needs "url"'],
    ['postgres', '{kind: postgres, auth: pg}', 'postgres tool needs SQL in "query", "command" or "commands"'],
    ['python', '{kind: python, input: {a: 1}}', 'python tool needs "code" (or "script.source.code")'],
    ['javascript', '{kind: javascript}', 'javascript tool needs "code"'],
    ['playbook', '{kind: playbook, return_step: end}', 'playbook tool needs "path"'],
    ['workbook', '{kind: workbook}', 'workbook tool needs "name" (a workbook entry)'],
    ['sleep', '{kind: sleep}', 'sleep tool needs "seconds" or "until"'],
    [
      'postgres with an empty command list',
      '{kind: postgres, auth: pg, commands: []}',
      'postgres tool needs SQL in "query", "command" or "commands"',
    ],
  ])('%s: reports the missing required key at the tool', (_kind, tool, message) => {
    expect(problemsOf(playbookText(`- step: start\n  tool: ${tool}`))).toEqual([{ path: 'workflow[0].tool', line: 7, column: 3, message }]);
  });

  it.each([
    ['{kind: http, url: [1]}', 'workflow[0].tool.url', '"url" must be a string'],
    ['{kind: postgres, auth: pg, commands: [1]}', 'workflow[0].tool.commands', '"commands" must be a string or a list of strings'],
    ['{kind: sleep, seconds: -1}', 'workflow[0].tool.seconds', '"seconds" must be a non-negative number or a template'],
    ['{kind: http, url: "http://x", method: 1}', 'workflow[0].tool.method', '"method" must be a string'],
    ['{kind: 7}', 'workflow[0].tool.kind', 'tool "kind" must be a string'],
    ['{url: "http://x"}', 'workflow[0].tool', 'tool needs "kind"'],
    ['[]', 'workflow[0].tool', 'a tool list (pipeline) needs at least one task'],
    ['[1]', 'workflow[0].tool[0]', 'a tool must be a mapping with a "kind"'],
    ['[{kind: noop}]', 'workflow[0].tool[0]', 'a pipeline task needs a "name"'],
    ['7', 'workflow[0].tool', '"tool" must be a mapping, a list of tasks or a tool kind'],
    ['{kind: noop, spec: 1}', 'workflow[0].tool.spec', '"spec" must be a mapping'],
    ['{kind: noop, input: [1]}', 'workflow[0].tool.input', '"input" must be a mapping'],
    ['{kind: http, url: a, endpoint: b}', 'workflow[0].tool.endpoint', '"url" and "endpoint" are aliases; give only one'],
    ['{kind: noop, input: {}, args: {}}', 'workflow[0].tool.args', '"input" and "args" are aliases; give only one'],
  ])('%s -> %s', (tool, path, message) => {
    expect(problemsOf(playbookText(`- step: start\n  tool: ${tool}`))).toEqual([expect.objectContaining({ path, message })]);
  });

  it('accepts any extra key on a tool: only the required ones are checked', () => {
    const [step] = stepsOf(
      '- step: s\n  tool: {kind: postgres, auth: pg, query: "SELECT 1", pool: {size: 2}, output: {store: {kind: kv}}}',
    );
    // A mapping `pool` is NoETL's connection-pool options: ignored, and no worker pool.
    expect(step?.tool?.tasks[0]?.config).toEqual({ auth: 'pg', query: 'SELECT 1', output: { store: { kind: 'kv' } } });
    expect(step?.pool).toBeUndefined();
  });

  it('reports duplicate task names with the line of the first', () => {
    const text = playbookText('- step: s\n  tool:\n    - {name: a, kind: noop}\n    - {name: a, kind: noop}');
    expect(problemsOf(text)).toEqual([
      { path: 'workflow[0].tool[1].name', line: 9, column: 14, message: 'duplicate task name "a" (first at line 8)' },
    ]);
  });

  it('compiles spec.policy rules and task set', () => {
    const [step] = stepsOf(`
      - step: s
        tool:
          kind: http
          url: "http://x"
          set: {page: "{{ output }}"}
          spec:
            policy:
              rules:
                - when: "{{ output.status == 'error' }}"
                  then: {do: retry, attempts: 3, backoff: fixed, delay: 1}
                - else: {then: {do: continue, set: {iter.n: 1}}}`);
    const task = step?.tool?.tasks[0];
    expect(task?.set).toEqual([{ scope: 'local', key: 'page', value: '{{ output }}' }]);
    expect(task?.policies.map((p) => p.action.do)).toEqual(['retry', 'proceed']);
    expect(task?.policies[1]?.set).toEqual([{ scope: 'iter', key: 'n', value: 1 }]);
  });

  it('reports bad policy values through the policy compiler, under the tool path', () => {
    const text = playbookText(
      '- step: s\n  tool:\n    kind: noop\n    spec:\n      policy:\n        rules:\n          - when: true\n            then: {do: explode}',
    );
    const problems = problemsOf(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 13 });
    expect(problems[0]?.path).toMatch(/^workflow\[0\]\.tool\.spec\.policy\.rules\[0\]\.then/);
  });

  it('accepts a jump to a task of the same pipeline and reports any other', () => {
    const pipeline = (target: string): string => `
      - step: s
        tool:
          - {name: fetch, kind: noop}
          - name: page
            kind: noop
            spec:
              policy:
                rules:
                  - when: "{{ more }}"
                    then: {do: jump, to: ${target}}
                  - else: {then: {do: continue}}`;
    expect(stepsOf(pipeline('fetch'))[0]?.tool?.tasks[1]?.policies[0]?.action).toEqual({ do: 'jump', to: 'fetch' });
    expect(problemsOf(playbookText(pipeline('other_step')))).toEqual([
      {
        path: 'workflow[0].tool[1].spec.policy.rules[0].then.to',
        line: 15,
        column: 36,
        message: 'jump target "other_step" is not a task of this pipeline',
      },
    ]);
  });

  it('finds the jump of an else rule', () => {
    const text = playbookText(
      '- step: s\n  tool:\n    kind: noop\n    spec:\n      policy:\n        rules:\n          - else: {do: jump, to: x}',
    );
    expect(problemsOf(text)).toEqual([expect.objectContaining({ path: 'workflow[0].tool.spec.policy.rules[0].else.to', line: 12 })]);
  });
});
