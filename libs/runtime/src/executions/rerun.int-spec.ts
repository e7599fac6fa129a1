import { EventType, type Json } from '@noetl/event-kernel';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import type { ExecutionDetail } from './execution-types';

jest.setTimeout(60_000);

// `draw` returns a random token: a step that ran again would show a new one.
const CHAIN = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: rerun_chain, path: tests/rerun_chain}
workload: {factor: 2, fail_at: none}
workflow:
  - step: start
    set: {ctx.stage: started}
    next: draw
  - step: draw
    tool: {kind: javascript, code: "return {token: Math.random()};"}
    next: scale
  - step: scale
    tool:
      kind: javascript
      input: {token: "{{ draw.token }}", factor: "{{ factor }}", fail: "{{ fail_at == 'scale' }}", stage: "{{ ctx.stage }}"}
      code: "if (fail) throw new Error('scale was told to fail'); return {scaled: token * factor, stage: stage};"
    next: end
  - step: end
    tool: {kind: noop, input: {scaled: "{{ scale.scaled }}", stage: "{{ scale.stage }}", token: "{{ draw.token }}"}}
`;

const LOOP = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: rerun_loop, path: tests/rerun_loop}
workload: {bonus: 0}
workflow:
  - step: start
    tool: {kind: javascript, code: "return {items: [1, 2, 3], token: Math.random()};"}
    next: each
  - step: each
    loop: {in: "{{ start.items }}", iterator: item}
    tool: {kind: javascript, input: {item: "{{ item }}", bonus: "{{ bonus }}"}, code: "return item * 10 + bonus;"}
    next: end
  - step: end
    tool: {kind: noop, input: {results: "{{ each.results }}", token: "{{ start.token }}"}}
`;

const CHILD = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: rerun_child, path: tests/rerun_child}
workload: {n: 1}
workflow:
  - step: start
    tool: {kind: javascript, input: {n: "{{ n }}"}, code: "return {doubled: n * 2, token: Math.random()};"}
`;

const PARENT = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: rerun_parent, path: tests/rerun_parent}
workload: {n: 4}
workflow:
  - step: start
    next: call
  - step: call
    tool: {kind: playbook, path: tests/rerun_child, input: {n: "{{ n }}"}}
    next: end
  - step: end
    tool: {kind: noop, input: {doubled: "{{ call.doubled }}", token: "{{ call.token }}"}}
`;

// \`big\` returns more than the inline limit of this suite: its result is stored by reference.
const BIG = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: rerun_big, path: tests/rerun_big}
workflow:
  - step: big
    tool: {kind: javascript, code: "return {text: 'x'.repeat(4096), token: Math.random()};"}
    next: small
  - step: small
    tool: {kind: noop, input: {length: "{{ big.text | length }}", token: "{{ big.token }}"}}
`;

const SLEEPY = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: rerun_sleepy, path: tests/rerun_sleepy}
workflow:
  - step: start
    tool: {kind: sleep, seconds: 60}
`;

/**
 * Re-running an execution (issue 26 item 4): a new execution, linked to
 * the original both ways, that copies the original's step results from
 * before the chosen step, and runs from there. What it copied is in its own
 * `execution.started`, so its replay needs no other execution's events.
 */
describe('rerun', () => {
  let t: TestEngine;

  beforeAll(async () => {
    t = await startTestEngine({ env: { NOETL_PAYLOAD_INLINE_LIMIT: '1024' } });
    for (const playbook of [CHAIN, LOOP, CHILD, PARENT, BIG, SLEEPY]) await t.engine.own.catalog.register(playbook);
  });
  afterAll(async () => t?.close());

  const run = async (path: string, payload: Record<string, Json> = {}): Promise<ExecutionDetail> =>
    t.engine.waitForTerminal((await t.engine.own.executions.start({ path, payload })).execution_id, { timeoutMs: 30_000 });
  const rerun = async (id: string, request: { from_step?: string; payload?: Record<string, Json> }): Promise<ExecutionDetail> =>
    t.engine.waitForTerminal((await t.engine.own.executions.rerun(id, request)).execution_id, { timeoutMs: 30_000 });
  const entered = async (id: string): Promise<string[]> =>
    (await t.engine.own.executions.events(id, { type: [EventType.StepEnter] })).events.map((event) => event.step ?? '');

  it('re-runs from the start with the original payload, or with a new one merged over it', async () => {
    const original = await run('tests/rerun_chain', { factor: 4 });
    expect(original.status).toBe('COMPLETED');

    const same = await rerun(original.execution_id, {});
    expect(same).toMatchObject({
      status: 'COMPLETED',
      workload: { factor: 4, fail_at: 'none' },
      rerun_of: { execution_id: original.execution_id, from_step: null, as_of_event_id: null },
    });
    expect(await entered(same.execution_id)).toEqual(['start', 'draw', 'scale', 'end']);
    // Every step ran again: a new token.
    expect((same.result as { token: number }).token).not.toBe((original.result as { token: number }).token);

    const changed = await rerun(original.execution_id, { payload: { factor: 10 } });
    expect(changed.workload).toEqual({ factor: 10, fail_at: 'none' });
    const result = changed.result as { token: number; scaled: number };
    expect(result.scaled).toBeCloseTo(result.token * 10);
    expect((await t.engine.own.executions.get(original.execution_id)).reruns).toEqual([same.execution_id, changed.execution_id]);
  });

  it('re-runs a failed execution from its failed step: the steps before it are not run again, their results and ctx are copied', async () => {
    const original = await run('tests/rerun_chain', { fail_at: 'scale' });
    expect(original).toMatchObject({ status: 'FAILED', error: { step: 'scale' } });
    const token = (await t.engine.own.executions.stepResult(original.execution_id, 'draw')) as { token: number };

    const fixed = await rerun(original.execution_id, { from_step: 'scale', payload: { fail_at: 'none', factor: 3 } });
    expect(fixed.status).toBe('COMPLETED');
    expect(fixed.result).toEqual({ scaled: token.token * 3, stage: 'started', token: token.token });
    expect(await entered(fixed.execution_id)).toEqual(['scale', 'end']);
    expect(fixed.steps.map((step) => step.step)).toEqual(['scale', 'end']);
    expect(fixed.rerun_of).toMatchObject({ execution_id: original.execution_id, from_step: 'scale' });
    expect((await t.engine.own.executions.get(original.execution_id)).reruns).toEqual([fixed.execution_id]);

    // The copy is the original replayed just before `scale` was first entered ...
    const asOf = fixed.rerun_of!.as_of_event_id!;
    const before = await t.engine.own.replay.stateAt({ executionId: original.execution_id, asOfEventId: asOf, projection: ['steps'] });
    const { events } = await t.engine.own.executions.events(original.execution_id, { after: asOf, limit: 1 });
    expect(events[0]).toMatchObject({ event_type: EventType.StepEnter, step: 'scale' });
    // ... and the rerun's own first event alone rebuilds it, saying where it came from.
    const first = await t.engine.own.replay.stateAt({
      executionId: fixed.execution_id,
      asOfPosition: 1,
      projection: ['execution', 'steps'],
    });
    expect((first.state.steps as { results: Json }).results).toEqual((before.state.steps as { results: Json }).results);
    expect(first.state.execution).toMatchObject({
      rerunOf: { executionId: original.execution_id, fromStep: 'scale', asOfEventId: asOf, asOfPosition: before.position.stream_version },
      ctx: { stage: 'started', fail_at: 'none', factor: 3 },
    });
  });

  it('re-runs from a loop step: a new loop over the copied collection', async () => {
    const original = await run('tests/rerun_loop');
    expect(original.result).toMatchObject({ results: [10, 20, 30] });

    const again = await rerun(original.execution_id, { from_step: 'each', payload: { bonus: 5 } });
    expect(again).toMatchObject({
      status: 'COMPLETED',
      result: { results: [15, 25, 35], token: (original.result as { token: number }).token },
    });
    expect(await entered(again.execution_id)).toEqual(['each', 'end']);
    expect(again.loops).toMatchObject([{ step: 'each', total: 3, done: 3, completed: true }]);
    expect(again.loops[0]!.loop_id).not.toBe(original.loops[0]!.loop_id);
  });

  it('re-runs a sub-playbook parent: from the calling step a new child starts under the rerun; after it, the child result is copied', async () => {
    const original = await run('tests/rerun_parent');
    expect(original.result).toMatchObject({ doubled: 8 });
    const childOf = async (id: string) => (await t.engine.own.executions.list({ parent: id })).executions;
    const [originalChild] = await childOf(original.execution_id);

    const fromCall = await rerun(original.execution_id, { from_step: 'call', payload: { n: 5 } });
    expect(fromCall.result).toMatchObject({ doubled: 10 });
    const children = await childOf(fromCall.execution_id);
    expect(children).toMatchObject([{ status: 'COMPLETED', path: 'tests/rerun_child' }]);
    expect(children[0]!.execution_id).not.toBe(originalChild!.execution_id);
    expect(await childOf(original.execution_id)).toEqual([originalChild]);

    const fromEnd = await rerun(original.execution_id, { from_step: 'end' });
    expect(fromEnd.result).toEqual(original.result);
    expect(await childOf(fromEnd.execution_id)).toEqual([]);
  });

  it('copies a result stored by reference as its reference, and stays whole when the original is purged', async () => {
    const original = await run('tests/rerun_big');
    const token = (original.result as { token: number }).token;
    const again = await rerun(original.execution_id, { from_step: 'small' });
    expect(again.result).toEqual({ length: 4096, token });
    const [started] = (await t.engine.own.executions.events(again.execution_id, { limit: 1 })).events;
    const seeded = (started!.payload as { seed: { results: Record<string, { ref?: { sha256: string } }> } }).seed.results;
    expect(seeded.big?.ref?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const replayed = await t.engine.own.replay.stateAt({ executionId: again.execution_id });

    await t.engine.own.admin.purge(original.execution_id, { reason: 'the rerun spec purges it' });
    // The rerun's state is in its own ledger: the same replay, and its result, after the purge.
    expect((await t.engine.own.replay.stateAt({ executionId: again.execution_id })).checksums).toEqual(replayed.checksums);
    expect(await t.engine.own.executions.stepResult(again.execution_id, 'big')).toMatchObject({ token });
    // The purged original keeps what a rerun from the start needs, not what one from a step copies.
    await expect(t.engine.own.executions.rerun(original.execution_id, { from_step: 'small' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('or its events were purged'),
    });
    const fresh = await rerun(original.execution_id, {});
    expect(fresh.status).toBe('COMPLETED');
    expect((fresh.result as { token: number }).token).not.toBe(token);
  });

  it('refuses an unknown step, a step the original never reached, a running original and an unknown execution, starting nothing', async () => {
    const failed = await run('tests/rerun_chain', { fail_at: 'scale' });
    const sleepy = (await t.engine.own.executions.start({ path: 'tests/rerun_sleepy' })).execution_id;
    const before = (await t.engine.own.executions.list({ limit: 1000 })).executions.length;

    await expect(t.engine.own.executions.rerun(failed.execution_id, { from_step: 'nosuch' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: '"nosuch" is not a step of tests/rerun_chain version 1; its steps are start, draw, scale, end',
    });
    await expect(t.engine.own.executions.rerun(failed.execution_id, { from_step: 'end' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining(`step "end" never started in execution ${failed.execution_id}`),
    });
    await expect(t.engine.own.executions.rerun(sleepy, {})).rejects.toMatchObject({
      code: 'execution_running',
      message: expect.stringContaining('cancel it'),
    });
    await expect(t.engine.own.executions.rerun('123456789', {})).rejects.toMatchObject({ code: 'not_found' });
    await expect(t.engine.own.executions.rerun('not-an-id', {})).rejects.toMatchObject({ code: 'not_found' });
    expect((await t.engine.own.executions.list({ limit: 1000 })).executions).toHaveLength(before);
    await t.engine.own.executions.cancel(sleepy, {});
  });

  it("never re-runs another tenant's execution, nor lists its reruns", async () => {
    const original = await run('tests/rerun_chain');
    const other = t.engine.tenant({ tenantId: 'someone-else', organizationId: t.config.tenancy.organizationId });
    await other.catalog.register(CHAIN);
    await expect(other.executions.rerun(original.execution_id, {})).rejects.toMatchObject({ code: 'not_found' });
    await expect(other.executions.rerun(original.execution_id, { from_step: 'scale' })).rejects.toMatchObject({ code: 'not_found' });

    const mine = await rerun(original.execution_id, {});
    await expect(other.executions.get(mine.execution_id)).rejects.toMatchObject({ code: 'not_found' });
    const theirs = await other.executions.start({ path: 'tests/rerun_chain' });
    await t.engine.waitForTerminal(theirs.execution_id, { scope: other.scope, timeoutMs: 30_000 });
    await other.executions.rerun(theirs.execution_id, {});
    expect((await t.engine.own.executions.get(original.execution_id)).reruns).toEqual([mine.execution_id]);
    expect((await other.executions.get(theirs.execution_id)).reruns).toHaveLength(1);
  });
});
