import { loopBodySpec, commandSpec, stepPool, workPool } from '../planner';
import { parseOk, playbookText, problemsOf, stepsOf } from './testing/playbook-text';

describe('worker pools in a playbook', () => {
  it('reads a step pool from tool.pool, the bare-kind form and the playbook default executor.spec.pool', () => {
    const playbook = parseOk(
      playbookText(
        `
        - step: start
          tool: {kind: javascript, code: "return 1", pool: gpu}
          next: [{step: bare}]
        - step: bare
          tool: http
          url: http://x
          pool: edge
          next: [{step: plain}]
        - step: plain
          tool: {kind: noop}`,
        'executor: {spec: {pool: default-pool}}',
      ),
    );
    expect(playbook.executor.pool).toBe('default-pool');
    expect(playbook.steps.map((step) => stepPool(playbook, step))).toEqual(['gpu', 'edge', 'default-pool']);
    expect(playbook.steps[0]?.tool?.tasks[0]?.config).toEqual({ code: 'return 1' });
  });

  it('issues a step and a loop body with their pool in the spec, and none without one', () => {
    const playbook = parseOk(
      playbookText(`
        - step: fan
          loop: {in: [1, 2], iterator: n}
          tool: {kind: noop, pool: b}
          next: [{step: end}]
        - step: end
          tool: {kind: noop}`),
    );
    const [fan, end] = playbook.steps;
    expect(workPool(loopBodySpec(playbook, fan!))).toBe('b');
    expect(workPool(loopBodySpec(playbook, end!))).toBeNull();
    const ctx = { playbook, state: { executionId: '1' } } as Parameters<typeof commandSpec>[0];
    expect(commandSpec(ctx, end!)).not.toHaveProperty('pool');
  });

  it.each([
    ['a dotted name (it would split a NATS subject)', 'gpu.a'],
    ['a template', '"{{ workload.pool }}"'],
    ['a number', '7'],
  ])('refuses %s as a pool, naming the path', (_what, value) => {
    expect(problemsOf(playbookText(`- step: s\n  tool: {kind: noop, pool: ${value}}`))).toEqual([
      expect.objectContaining({ path: 'workflow[0].tool.pool', message: expect.stringMatching(/^"pool" must name a worker pool/) }),
    ]);
  });

  it('refuses a pool on a pipeline task: a pool is chosen per step', () => {
    expect(problemsOf(playbookText('- step: s\n  tool:\n    - {name: a, kind: noop, pool: gpu}'))).toEqual([
      expect.objectContaining({ path: 'workflow[0].tool[0].pool', message: expect.stringContaining('put "pool" on the step') }),
    ]);
  });

  it('refuses a bad executor.spec.pool', () => {
    expect(problemsOf(playbookText('- step: s\n  tool: {kind: noop}', 'executor: {spec: {pool: "a b"}}'))).toEqual([
      expect.objectContaining({ path: 'executor.spec.pool' }),
    ]);
  });

  it('keeps a mapping pool (connection-pool options) as no worker pool', () => {
    const [step] = stepsOf('- step: s\n  tool: {kind: postgres, auth: pg, query: "SELECT 1", pool: {name: shared, max_size: 10}}');
    expect(step?.pool).toBeUndefined();
  });
});
