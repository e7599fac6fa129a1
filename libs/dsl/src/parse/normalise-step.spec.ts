import { playbookText, problemsOf, stepsOf } from './testing/playbook-text';

describe('steps', () => {
  it('reports unknown step keys, with a hint for misspellings and for tool keys', () => {
    const text = playbookText(`
      - step: start
        tool: {kind: noop}
        nxt: end
        command: "SELECT 1"
      - step: end`);
    expect(problemsOf(text)).toEqual([
      { path: 'workflow[0].nxt', line: 8, column: 3, message: 'unknown key "nxt" (did you mean "next"?)' },
      { path: 'workflow[0].command', line: 9, column: 3, message: 'unknown key "command" (a tool key: put it inside "tool")' },
    ]);
  });

  it('in the bare-kind form, keys are tool keys, but a misspelt step key is still reported', () => {
    expect(problemsOf(playbookText('- step: start\n  tool: http\n  url: "http://x"\n  nex: end'))).toEqual([
      { path: 'workflow[0].nex', line: 9, column: 3, message: 'unknown key "nex" (did you mean "next"?)' },
    ]);
  });

  it('a step without a tool is a routing step', () => {
    const [start, end] = stepsOf('- step: start\n  next: end\n- step: end');
    expect(start?.tool).toBeUndefined();
    expect(end).toEqual({ name: 'end', input: {}, retry: [], set: [], next: { mode: 'exclusive', onNoMatch: 'complete', arcs: [] } });
  });

  it('compiles step set (bare keys are ctx), legacy vars, retry, and keeps output options', () => {
    const [step] = stepsOf(`
      - step: s
        tool: {kind: http, url: "http://x"}
        set: {ctx.total: "{{ output.data.total }}", count: 1}
        vars: {user: "{{ s.user }}"}
        retry: 3
        output: {output_select: [a, b]}
        spec: {policy: {admit: {rules: []}}}`);
    expect(step?.set).toEqual([
      { scope: 'ctx', key: 'total', value: '{{ output.data.total }}' },
      { scope: 'ctx', key: 'count', value: 1 },
      { scope: 'ctx', key: 'user', value: '{{ s.user }}' },
    ]);
    expect(step?.retry).toHaveLength(1);
    expect(step?.retry[0]?.action).toMatchObject({ do: 'retry', maxAttempts: 3 });
    expect(step?.output).toEqual({ output_select: ['a', 'b'] });
  });

  it('compiles a retry per-iteration sink with the task compiler', () => {
    const [step] = stepsOf(`
      - step: s
        tool: {kind: http, url: "http://x"}
        retry:
          - when: "{{ response.more }}"
            then:
              max_attempts: 5
              next_call: {params: {page: "{{ response.page + 1 }}"}}
              per_iteration:
                sink: {tool: {kind: postgres, auth: pg, command: "INSERT {{ page }}"}}`);
    expect(step?.retry[0]?.action).toMatchObject({
      do: 'continue',
      perIteration: {
        sink: { kind: 'task', task: { name: 'sink', kind: 'postgres', config: { auth: 'pg', command: 'INSERT {{ page }}' } } },
      },
    });
  });

  it.each([
    ['the seed-004 form', '{tool: {kind: postgres, auth: pg, table: raw_data, mode: upsert, key: id, args: {id: "{{ page.id }}"}}}'],
    [
      'the seed-000 form',
      '{tool: postgres, auth: {type: postgres, credential: pg}, table: raw_data, mode: upsert, key: [id], args: {id: "{{ page.id }}"}}',
    ],
    [
      'a tool mapping given directly',
      '{kind: postgres, credential: pg, table: raw_data, mode: upsert, key: id, args: {id: "{{ page.id }}"}}',
    ],
  ])('compiles a table-form per-iteration sink: %s', (_name, sink) => {
    const [step] = stepsOf(`
      - step: s
        tool: {kind: http, url: "http://x"}
        retry:
          - when: "{{ response.more }}"
            then:
              next_call: {params: {page: 2}}
              per_iteration: {sink: ${sink}}`);
    expect(step?.retry[0]?.action).toMatchObject({
      perIteration: { sink: { kind: 'table', table: 'raw_data', auth: 'pg', mode: 'upsert', key: ['id'], args: { id: '{{ page.id }}' } } },
    });
  });

  it('reports a table-form sink that mixes in SQL or names another kind, at its keys', () => {
    const text = playbookText(`
      - step: s
        tool: {kind: http, url: "http://x"}
        retry:
          - when: "{{ response.more }}"
            then:
              next_call: {params: {page: 2}}
              per_iteration: {sink: {tool: {kind: http, auth: pg, table: t, command: "DELETE FROM t"}}}`);
    expect(problemsOf(text)).toEqual([
      expect.objectContaining({
        path: 'workflow[0].retry[0].then.per_iteration.sink.tool.kind',
        message: 'the table form of a sink writes to postgres, not "http"',
      }),
      expect.objectContaining({ path: 'workflow[0].retry[0].then.per_iteration.sink.tool.command', message: 'unknown key "command"' }),
    ]);
  });

  it.each([
    ['- 1', 'workflow[0]', 'a step must be a mapping with "step"'],
    ['- tool: {kind: noop}', 'workflow[0]', 'a step needs a name in "step"'],
    ['- step: ""\n  tool: {kind: noop}', 'workflow[0].step', 'a step needs a name in "step"'],
    ['- step: s\n  input: [1]', 'workflow[0].input', '"input" must be a mapping'],
    ['- step: s\n  output: [1]', 'workflow[0].output', '"output" must be a mapping (e.g. {output_select: [...]})'],
    ['- step: s\n  spec: 1', 'workflow[0].spec', '"spec" must be a mapping'],
    ['- step: s\n  loop: {in: [1], iterator: i}', 'workflow[0].loop', 'a loop step needs a "tool": the loop body'],
    ['- step: s\n  next: 1', 'workflow[0].next', '"next" must be a step name, a list or a mapping with "arcs"'],
    ['- step: s\n  next: {arcs: 1}', 'workflow[0].next.arcs', '"arcs" must be a list'],
    ['- step: s\n  next: {spec: 1}', 'workflow[0].next.spec', '"spec" must be a mapping'],
    ['- step: s\n  next: {spec: {mode: random}}', 'workflow[0].next.spec.mode', '"mode" must be "exclusive" or "inclusive", not "random"'],
    [
      '- step: s\n  next: {spec: {on_no_match: fail}}',
      'workflow[0].next.spec.on_no_match',
      '"on_no_match" must be "complete" or "quiet", not "fail"',
    ],
    ['- step: s\n  next: [1]', 'workflow[0].next[0]', 'an arc must be a step name or a mapping with "step"'],
    ['- step: s\n  next: [{when: true}]', 'workflow[0].next[0]', 'an arc needs a target "step"'],
    ['- step: s\n  next: [{step: s, when: 1}]', 'workflow[0].next[0].when', '"when" must be a template or a boolean'],
    ['- step: s\n  next: [{step: s, args: {}}]', 'workflow[0].next[0].args', 'unknown key "args"'],
    ['- step: s\n  next: {arcs: [], other: 1}', 'workflow[0].next.other', 'unknown key "other"'],
  ])('%s', (steps, path, message) => {
    expect(problemsOf(playbookText(steps))).toContainEqual(expect.objectContaining({ path, message }));
  });

  it('accepts unknown keys inside next.spec and tool.spec', () => {
    expect(() =>
      stepsOf('- step: s\n  tool: {kind: noop, spec: {timeout: 3}}\n  next: {spec: {mode: inclusive, note: x}, arcs: []}'),
    ).not.toThrow();
  });
});
