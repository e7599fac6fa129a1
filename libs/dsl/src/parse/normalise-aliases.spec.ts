import { DEFAULT_FRAME_POLICY } from '../model';
import { dedent, stepsOf } from './testing/playbook-text';

/** Two spellings of the same workflow must give deep-equal steps. */
function expectSameSteps(alias: string, canonical: string, extra = ''): void {
  expect(stepsOf(alias, extra)).toEqual(stepsOf(canonical, extra));
}

const END = '- step: end\n  tool: {kind: noop}';

describe('every accepted spelling normalises to the canonical model', () => {
  describe('next', () => {
    const canonical = `${dedent(`
      - step: start
        tool: {kind: noop}
        next:
          spec: {mode: exclusive, on_no_match: complete}
          arcs:
            - step: end`)}\n${END}`;

    it.each([
      ['one step name', 'next: end'],
      ['a list of step names', 'next: [end]'],
      ['a list of arcs', 'next: [{step: end}]'],
      ['arcs without spec', 'next: {arcs: [{step: end}]}'],
      ['one arc mapping', 'next: {step: end}'],
    ])('%s', (_label, next) => {
      expectSameSteps(`- step: start\n  tool: {kind: noop}\n  ${next}\n${END}`, canonical);
    });

    it('keeps when, set and the spec of the arcs form', () => {
      const [start] = stepsOf(
        `${dedent(`
        - step: start
          tool: {kind: noop}
          next:
            spec: {mode: inclusive, on_no_match: quiet}
            arcs:
              - step: end
                when: "{{ x > 1 }}"
                set: {ctx.page: "{{ ctx.page + 1 }}"}
              - step: end
                when: false`)}\n${END}`,
      );
      expect(start?.next).toEqual({
        mode: 'inclusive',
        onNoMatch: 'quiet',
        arcs: [
          { step: 'end', when: '{{ x > 1 }}', set: [{ scope: 'ctx', key: 'page', value: '{{ ctx.page + 1 }}' }] },
          { step: 'end', when: false, set: [] },
        ],
      });
    });

    it('defaults to no arcs for a terminal step', () => {
      expect(stepsOf(END)[0]?.next).toEqual({ mode: 'exclusive', onNoMatch: 'complete', arcs: [] });
    });
  });

  it('args is an alias of input, on the step and on a task', () => {
    expectSameSteps(
      `- step: s\n  args: {a: 1}\n  tool: {kind: python, code: "result = 1", args: {b: 2}}`,
      `- step: s\n  input: {a: 1}\n  tool: {kind: python, code: "result = 1", input: {b: 2}}`,
    );
  });

  it('description is an alias of desc', () => {
    expectSameSteps(`- step: s\n  description: hello\n  tool: {kind: noop}`, `- step: s\n  desc: hello\n  tool: {kind: noop}`);
  });

  describe('the bare tool kind with its keys on the step', () => {
    it.each([
      ['http', 'url: "{{ api_url }}/health"\n  method: GET\n  params: {a: 1}', 'url: "{{ api_url }}/health", method: GET, params: {a: 1}'],
      ['python', 'code: "result = 1"\n  libs: {json: json}', 'code: "result = 1", libs: {json: json}'],
      ['postgres', 'auth: pg\n  command: "SELECT 1"', 'auth: pg, command: "SELECT 1"'],
      ['sleep', 'seconds: 5', 'seconds: 5'],
    ])('tool: %s', (kind, stepKeys, toolKeys) => {
      expectSameSteps(
        `- step: s\n  tool: ${kind}\n  ${stepKeys}\n  input: {x: 1}\n  next: s2\n- step: s2\n  tool: {kind: noop}`,
        `- step: s\n  tool: {kind: ${kind}, ${toolKeys}}\n  input: {x: 1}\n  next: s2\n- step: s2\n  tool: {kind: noop}`,
      );
    });

    it('gives a workbook call its entry name', () => {
      const extra = 'workbook:\n  - name: w\n    tool: {kind: noop}';
      expectSameSteps(`- step: s\n  tool: workbook\n  name: w`, `- step: s\n  tool: {kind: workbook, name: w}`, extra);
    });
  });

  it('kind js is javascript', () => {
    expectSameSteps(`- step: s\n  tool: {kind: js, code: "return 1"}`, `- step: s\n  tool: {kind: javascript, code: "return 1"}`);
  });

  it('endpoint is url for http', () => {
    expectSameSteps(`- step: s\n  tool: {kind: http, endpoint: "http://x"}`, `- step: s\n  tool: {kind: http, url: "http://x"}`);
  });

  it.each(['payload', 'json', 'data'])('%s is body for http', (alias) => {
    expectSameSteps(
      `- step: s\n  tool: {kind: http, url: "http://x", ${alias}: {a: 1}}`,
      `- step: s\n  tool: {kind: http, url: "http://x", body: {a: 1}}`,
    );
  });

  it('data stays data outside http', () => {
    const [step] = stepsOf(`- step: s\n  tool: {kind: noop, data: 1}`);
    expect(step?.tool?.tasks[0]?.config).toEqual({ data: 1 });
  });

  it('credential is auth', () => {
    expectSameSteps(
      `- step: s\n  tool: {kind: postgres, credential: pg, query: "SELECT 1"}`,
      `- step: s\n  tool: {kind: postgres, auth: pg, query: "SELECT 1"}`,
    );
  });

  it('inline script source is code for python', () => {
    expectSameSteps(
      `- step: s\n  tool: {kind: python, script: {uri: inline, source: {type: inline, code: "{{ c }}"}}}`,
      `- step: s\n  tool: {kind: python, code: "{{ c }}"}`,
    );
  });

  it('a single tool is one task named after the step; a list is a pipeline', () => {
    const [single, pipeline] = stepsOf(
      `
      - step: single
        tool: {kind: python, code: "result = 1", set: {r: "{{ output }}"}}
        next: pipe
      - step: pipe
        tool:
          - {name: a, kind: noop}
          - {name: b, kind: workbook, input: {x: 1}}
      `,
      'workbook:\n  - name: b\n    tool: {kind: noop}',
    );
    expect(single?.tool).toEqual({
      pipeline: false,
      tasks: [
        {
          name: 'single',
          kind: 'python',
          config: { code: 'result = 1' },
          input: {},
          policies: [],
          set: [{ scope: 'local', key: 'r', value: '{{ output }}' }],
        },
      ],
    });
    expect(pipeline?.tool).toEqual({
      pipeline: true,
      tasks: [
        { name: 'a', kind: 'noop', config: {}, input: {}, policies: [], set: [] },
        { name: 'b', kind: 'workbook', config: { name: 'b' }, input: { x: 1 }, policies: [], set: [] },
      ],
    });
  });

  describe('loop', () => {
    const canonical = `
      - step: s
        loop:
          in: "{{ items }}"
          iterator: item
          spec: {mode: parallel, max_in_flight: 4}
        tool: {kind: noop}`;

    it.each([
      ['collection/element', 'collection: "{{ items }}"\n    element: item\n    spec: {mode: parallel, max_in_flight: 4}'],
      ['mode at loop level', 'in: "{{ items }}"\n    iterator: item\n    mode: parallel\n    spec: {max_in_flight: 4}'],
      ['async is parallel', 'in: "{{ items }}"\n    iterator: item\n    spec: {mode: async, max_in_flight: 4}'],
      ['concurrency is max_in_flight', 'in: "{{ items }}"\n    iterator: item\n    mode: parallel\n    concurrency: 4'],
      ['max_in_flight at loop level', 'in: "{{ items }}"\n    iterator: item\n    mode: parallel\n    max_in_flight: "4"'],
    ])('%s', (_label, loop) => {
      expectSameSteps(`- step: s\n  loop:\n    ${loop}\n  tool: {kind: noop}`, canonical);
    });

    it('defaults: sequential, max_in_flight left to the planner (it knows the size), no fan-out, the default frame', () => {
      const [step] = stepsOf(`- step: s\n  loop: {in: [1, 2], iterator: n}\n  tool: {kind: noop}`);
      expect(step?.loop).toEqual({
        source: { kind: 'collection', in: [1, 2] },
        iterator: 'n',
        mode: 'sequential',
        fanout: false,
        maxShardRetries: 2,
        frame: DEFAULT_FRAME_POLICY,
      });
    });

    it('a parallel loop without max_in_flight leaves it absent (the planner gives the default); a template is kept', () => {
      const [a, b] = stepsOf(`
        - step: a
          loop: {in: [1], iterator: n, mode: parallel}
          tool: {kind: noop}
          next: b
        - step: b
          loop: {in: [1], iterator: n, spec: {mode: parallel, max_in_flight: "{{ workers }}"}}
          tool: {kind: noop}`);
      expect(a?.loop?.maxInFlight).toBeUndefined();
      expect(b?.loop?.maxInFlight).toBe('{{ workers }}');
    });

    it('reads fan-out and frame settings, filling the missing ones from the defaults', () => {
      const [step] = stepsOf(`
        - step: s
          loop:
            in: "{{ items }}"
            iterator: item
            spec:
              loop_mode: fanout
              fanout: {max_shard_retries: 5}
              frame: {max_rows: 50, process: frame}
              policy: {exec: distributed}
          tool: {kind: noop}`);
      expect(step?.loop).toMatchObject({
        fanout: true,
        maxShardRetries: 5,
        frame: { ...DEFAULT_FRAME_POLICY, maxRows: 50, process: 'frame' },
      });
    });

    it('a cursor loop defaults to mode cursor and takes credential as auth', () => {
      expectSameSteps(
        `- step: s\n  loop:\n    cursor: {credential: pg, claim: "SELECT 1"}\n    iterator: row\n  tool: {kind: noop}`,
        `- step: s\n  loop:\n    cursor: {kind: postgres, auth: pg, claim: "SELECT 1"}\n    iterator: row\n    spec: {mode: cursor}\n  tool: {kind: noop}`,
      );
    });
  });

  describe('sink', () => {
    it('on the step of a loop is the loop sink', () => {
      expectSameSteps(
        `- step: s\n  loop: {in: [1], iterator: n}\n  sink: {tool: postgres, auth: pg, table: t}\n  tool: {kind: noop}`,
        `- step: s\n  loop: {in: [1], iterator: n, sink: {tool: postgres, auth: pg, table: t}}\n  tool: {kind: noop}`,
      );
    });

    it('the table form', () => {
      const [step] = stepsOf(
        `- step: s\n  loop: {in: [1], iterator: n}\n  sink: {tool: postgres, credential: pg, table: t, mode: upsert, key: id, args: {id: "{{ n }}"}}\n  tool: {kind: noop}`,
      );
      expect(step?.loop?.sink).toEqual({ kind: 'table', auth: 'pg', table: 't', mode: 'upsert', key: ['id'], args: { id: '{{ n }}' } });
    });

    it('the table form written as seed 004 (inside "tool") and as seed 000 (auth {type, credential}, mode append)', () => {
      const canonical = `- step: s\n  loop: {in: [1], iterator: n}\n  sink: {tool: postgres, auth: pg, table: t, mode: insert, args: {id: "{{ n }}"}}\n  tool: {kind: noop}`;
      for (const alias of [
        `- step: s\n  loop: {in: [1], iterator: n, sink: {tool: {kind: postgres, auth: pg, table: t, mode: insert, args: {id: "{{ n }}"}}}}\n  tool: {kind: noop}`,
        `- step: s\n  loop: {in: [1], iterator: n}\n  sink: {tool: {kind: postgres, credential: pg, table: t, args: {id: "{{ n }}"}}}\n  tool: {kind: noop}`,
        `- step: s\n  loop: {in: [1], iterator: n}\n  sink: {tool: postgres, auth: {type: postgres, credential: pg}, table: t, mode: append, args: {id: "{{ n }}"}}\n  tool: {kind: noop}`,
      ])
        expectSameSteps(alias, canonical);
    });

    it('the tool form, and a bare kind with its keys beside it', () => {
      expectSameSteps(
        `- step: s\n  sink: {tool: postgres, auth: pg, command: "INSERT 1"}\n  tool: {kind: noop}`,
        `- step: s\n  sink: {tool: {kind: postgres, auth: pg, command: "INSERT 1"}}\n  tool: {kind: noop}`,
      );
      const [step] = stepsOf(
        `- step: s\n  sink: {tool: {kind: postgres, connection: "{{ dsn }}", command: "INSERT 1"}}\n  tool: {kind: noop}`,
      );
      expect(step?.sink).toEqual({
        kind: 'task',
        task: {
          name: 'sink',
          kind: 'postgres',
          config: { connection: '{{ dsn }}', command: 'INSERT 1' },
          input: {},
          policies: [],
          set: [],
        },
      });
    });
  });
});
