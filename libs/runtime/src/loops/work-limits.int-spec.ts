import { EventType } from '@noetl/event-kernel';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';

const SELF = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: self, path: tests/self}
workflow:
  - step: again
    tool: {kind: playbook, path: tests/self}
`;
const PIPELINE_OF_CHILDREN = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: many_children, path: tests/many_children}
workflow:
  - step: calls
    tool:
      - {name: c1, kind: playbook, path: tests/leaf}
      - {name: c2, kind: playbook, path: tests/leaf}
      - {name: c3, kind: playbook, path: tests/leaf}
      - {name: c4, kind: playbook, path: tests/leaf}
`;
const LEAF = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: leaf, path: tests/leaf}
workflow:
  - step: done
    tool: {kind: noop}
`;
const BIG_LOOP = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: big_loop, path: tests/big_loop}
workload: {ids: []}
workflow:
  - step: each
    loop: {in: "{{ ids }}", iterator: id, spec: {mode: parallel, max_in_flight: 4}}
    tool: {kind: noop}
`;

const RANGE_LOOP = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: range_loop, path: tests/range_loop}
workload: {n: 10}
workflow:
  - step: each
    loop: {in: "{{ range(0, n) }}", iterator: i, spec: {mode: parallel, max_in_flight: 4, frame: {max_rows: 100}}}
    tool: {kind: noop}
`;

jest.setTimeout(120_000);

/**
 * Issue 15 defect 8: a playbook that called itself started 10,551
 * executions before someone cancelled it; a cancelled 1,000,000-item loop
 * left 998,437 PENDING frames and an open stage. Now nesting, children and
 * loop sizes have limits (small here, so the spec is quick), and the end of
 * an execution closes its stages and frames in bulk.
 */
describe('limits on the work one playbook sets off', () => {
  let t: TestEngine;

  beforeAll(async () => {
    t = await startTestEngine({
      env: { NOETL_MAX_PLAYBOOK_DEPTH: '4', NOETL_MAX_CHILD_EXECUTIONS: '3', NOETL_MAX_LOOP_ITEMS: '150000', NOETL_MAX_RANGE_ITEMS: '500' },
    });
    for (const playbook of [SELF, PIPELINE_OF_CHILDREN, LEAF, BIG_LOOP, RANGE_LOOP]) await t.engine.own.catalog.register(playbook);
  });
  afterAll(async () => t?.close());

  const countRows = async (sql: string, params: unknown[]): Promise<number> =>
    Number((await t.database.query<{ n: string }>(sql, params))[0]?.n ?? 0);

  it('stops a playbook that calls itself at the nesting depth, and its whole chain fails saying so', async () => {
    const { execution_id: root } = await t.engine.own.executions.start({ path: 'tests/self' });
    const detail = await t.engine.waitForTerminal(root, { timeoutMs: 60_000 });
    expect(detail.status).toBe('FAILED');
    expect(detail.error?.message).toContain('NOETL_MAX_PLAYBOOK_DEPTH');
    // The root and four levels below it; the fifth level was never started.
    const executions = await countRows(`SELECT count(*) AS n FROM noetl.execution WHERE path = 'tests/self'`, []);
    expect(executions).toBe(5);
    const deepest = await t.database.query<{ execution_id: string }>(
      `SELECT execution_id FROM noetl.execution WHERE path = 'tests/self' ORDER BY execution_id DESC LIMIT 1`,
    );
    const failed = await t.engine.own.executions.events(String(deepest[0]!.execution_id), { type: [EventType.StepExit] });
    expect(failed.events[0]?.payload).toMatchObject({
      status: 'FAILED',
      error: {
        kind: 'limit',
        message: expect.stringContaining('would run 5 levels below its root execution; the limit is 4 (NOETL_MAX_PLAYBOOK_DEPTH)'),
      },
    });
  });

  it('fails the step that would start one child execution too many', async () => {
    const { execution_id: id } = await t.engine.own.executions.start({ path: 'tests/many_children' });
    const detail = await t.engine.waitForTerminal(id, { timeoutMs: 30_000 });
    expect(detail).toMatchObject({ status: 'FAILED', error: { step: 'calls', kind: 'limit' } });
    expect(detail.error?.message).toContain('would start its child execution number 4; the limit is 3 (NOETL_MAX_CHILD_EXECUTIONS)');
    expect(await countRows('SELECT count(*) AS n FROM noetl.execution WHERE parent_execution_id = $1::bigint', [id])).toBe(3);
  });

  it('fails a loop step whose collection is above the limit, with a message', async () => {
    const ids = Array.from({ length: 150_001 }, (_, i) => i);
    const { execution_id: id } = await t.engine.own.executions.start({ path: 'tests/big_loop', payload: { ids } });
    const detail = await t.engine.waitForTerminal(id, { timeoutMs: 30_000 });
    expect(detail).toMatchObject({
      status: 'FAILED',
      error: { step: 'each', kind: 'limit', message: 'the loop of step each has 150001 items; the limit is 150000 (NOETL_MAX_LOOP_ITEMS)' },
    });
    expect(await countRows('SELECT count(*) AS n FROM noetl.frame WHERE execution_id = $1::bigint', [id])).toBe(0);
  });

  it('caps range() at NOETL_MAX_RANGE_ITEMS: a loop over a longer range fails its step with a template error that says so', async () => {
    const within = (await t.engine.own.executions.start({ path: 'tests/range_loop', payload: { n: 500 } })).execution_id;
    expect(await t.engine.waitForTerminal(within, { timeoutMs: 30_000 })).toMatchObject({ status: 'COMPLETED' });
    const beyond = (await t.engine.own.executions.start({ path: 'tests/range_loop', payload: { n: 501 } })).execution_id;
    expect(await t.engine.waitForTerminal(beyond, { timeoutMs: 30_000 })).toMatchObject({
      status: 'FAILED',
      error: { step: 'each', message: expect.stringContaining('range() of 501 items is too large') },
    });
  });

  it('closes the stage and cancels every open frame of a cancelled 100,000-item loop at once', async () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => i);
    const { execution_id: id } = await t.engine.own.executions.start({ path: 'tests/big_loop', payload: { ids } });
    await waitFor(
      async () => (await t.engine.own.executions.events(id, { type: [EventType.FrameCommitted], limit: 1 })).events.length > 0,
      {
        timeoutMs: 60_000,
        description: 'the loop to be running',
      },
    );
    const cancelledAt = Date.now();
    await t.engine.own.executions.cancel(id, { reason: 'enough' });
    expect(await t.engine.waitForTerminal(id, { timeoutMs: 30_000 })).toMatchObject({ status: 'CANCELLED' });
    await waitFor(
      async () =>
        (await countRows(
          `SELECT count(*) AS n FROM noetl.frame WHERE execution_id = $1::bigint AND status IN ('PENDING', 'CLAIMED', 'RUNNING')`,
          [id],
        )) === 0,
      { timeoutMs: 30_000, description: 'no open frame left' },
    );
    expect(Date.now() - cancelledAt).toBeLessThan(30_000);
    expect(await countRows(`SELECT count(*) AS n FROM noetl.stage WHERE execution_id = $1::bigint AND status = 'OPEN'`, [id])).toBe(0);
    expect(
      await countRows(`SELECT count(*) AS n FROM noetl.frame WHERE execution_id = $1::bigint AND status = 'CANCELLED'`, [id]),
    ).toBeGreaterThan(90_000);
  });
});
