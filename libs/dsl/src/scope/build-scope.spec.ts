import { ExpressionEngine } from '../expressions';
import { PlannerHarness, workflow } from '../planner/testing/planner-harness';
import { buildScope } from './build-scope';

const engine = new ExpressionEngine({ now: () => new Date('2025-01-01T00:00:00Z'), uuid: () => 'u' });

const playbook = workflow(
  `
  - step: start
    tool: { kind: python, code: "result = 1" }
    next: [items]
  - step: items
    loop: { in: "{{ start.list }}", iterator: it }
    tool: { kind: python, code: "result = 1" }
    next: [big]
  - step: big
    tool: { kind: python, code: "result = 1" }
`,
  `workload: { api_url: "http://x", offset: 0, execution_id: "{{ job.uuid }}", job: 1, catalog_id: 9 }`,
);

function harnessAfterSteps(): PlannerHarness {
  const h = new PlannerHarness(playbook, { parentExecutionId: '55' }).start();
  h.complete('start', { list: [1, 2], data: { executed: true } }, { ctx: { offset: 20 } });
  h.commitFrame('items', 0, [{ n: 1 }]);
  h.commitFrame('items', 1, [{ n: 2 }]);
  h.complete('big', null, { result_ref: h.ref({ rows: [1, 2, 3] }) });
  return h;
}

describe('buildScope', () => {
  const h = harnessAfterSteps();
  const scope = buildScope({ state: h.state, playbook, resolve: h.env.resolve, extra: { event: { name: 'x' }, offset: 99 } });
  const render = (template: string): unknown => engine.renderString(template, scope);

  it('exposes workload and ctx keys bare, ctx winning, and under workload / ctx / vars', () => {
    expect(render('{{ api_url }}')).toBe('http://x');
    expect(render('{{ workload.offset }}')).toBe(0);
    expect(render('{{ ctx.offset }}')).toBe(20);
    expect(render('{{ vars.offset }}')).toBe(20);
  });

  it('lets extra names win over bare keys', () => {
    expect(render('{{ offset }}')).toBe(99);
    expect(render('{{ event.name }}')).toBe('x');
  });

  it('exposes completed steps by name as result views, by-reference results resolved', () => {
    expect(render('{{ start.data.executed }}')).toBe(true);
    expect(render('{{ start.list | length }}')).toBe(2);
    expect(render('{{ items.data | length }}')).toBe(2);
    expect(render('{{ items.stats.total }}')).toBe(2);
    expect(render('{{ items.results[1].n }}')).toBe(2);
    expect(render('{{ big.rows[2] }}')).toBe(3);
    expect(render('{{ big.data.rows | length }}')).toBe(3);
  });

  it('leaves a step that never ran undefined and falsy', () => {
    expect(render('{{ "ran" if never_ran else "not" }}')).toBe('not');
  });

  it('keeps the execution identifiers, which workload keys cannot override', () => {
    expect(render('{{ execution_id }}')).toBe(h.executionId);
    expect(render('{{ parent_execution_id }}')).toBe('55');
    expect(render('{{ job.uuid }}-{{ job.id }}-{{ job.execution_id }}')).toBe(`${h.executionId}-${h.executionId}-${h.executionId}`);
    expect(render('{{ catalog_id }}')).toBe('1');
  });

  it('resolves a by-reference result only when a template reads it', () => {
    const resolve = jest.fn(h.env.resolve);
    const lazy = buildScope({ state: h.state, playbook, resolve });
    expect(engine.renderString('{{ api_url }}', lazy)).toBe('http://x');
    expect(resolve).not.toHaveBeenCalled();
    expect(engine.renderString('{{ big.rows | length }}', lazy)).toBe(3);
    expect(engine.renderString('{{ big.rows[0] }}', lazy)).toBe(1);
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it('serialises as plain JSON (no cycles through the views)', () => {
    expect(() => JSON.stringify(scope)).not.toThrow();
  });

  it('with only, lays in just the named results, workload and ctx keys, and renders them as the whole scope does', () => {
    const only = new Set(['start', 'api_url', 'missing']);
    const narrow = buildScope({ state: h.state, playbook, resolve: h.env.resolve, only });
    expect(
      Object.keys(narrow)
        .filter((key) => !['workload', 'ctx', 'vars', 'execution_id', 'parent_execution_id', 'catalog_id', 'job'].includes(key))
        .sort(),
    ).toEqual(['api_url', 'start']);
    const template = '{{ start.list | length }} {{ api_url }} {{ ctx.offset }} {{ workload.offset }}';
    expect(engine.renderString(template, narrow)).toBe(
      engine.renderString(template, buildScope({ state: h.state, playbook, resolve: h.env.resolve })),
    );
  });
});
