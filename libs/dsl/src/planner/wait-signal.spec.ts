import { EventType } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

const approval = workflow(`
  - step: prepare
    tool: { kind: javascript, code: "return {order: 7}" }
    next: approve
  - step: approve
    tool: { kind: wait, signal: approval }
    next:
      - step: ship
        when: "{{ approve.approved }}"
      - step: rejected
  - step: ship
    tool: { kind: noop }
  - step: rejected
`);

describe('the wait tool', () => {
  it('parks the step with no command and no timer, then completes it with the signal payload and routes on it', () => {
    const h = new PlannerHarness(approval).start();
    h.complete('prepare', { order: 7 });
    expect(h.state.steps.approve?.status).toBe('RUNNING');
    expect(h.openCommands()).toEqual([]);
    expect(h.ofType(EventType.TimerScheduled)).toEqual([]);
    expect(h.state.status).toBe('RUNNING');

    const signal = h.signal('approval', { approved: true, by: 'ada' });
    const exit = h.ofType(EventType.StepExit).find((e) => e.payload.step === 'approve');
    expect(exit?.payload).toMatchObject({
      status: 'COMPLETED',
      result: { approved: true, by: 'ada' },
      next: ['ship'],
      signal: { name: 'approval', event_id: signal.event_id },
    });
    h.complete('ship');
    expect(h.state.status).toBe('COMPLETED');
    expect(h.state.signals).toEqual({});
  });

  it('routes a rejection the other way', () => {
    const h = new PlannerHarness(approval).start();
    h.complete('prepare');
    h.signal('approval', { approved: false });
    expect(h.trace()).toContain('exit rejected');
    expect(h.state.status).toBe('COMPLETED');
  });

  it('keeps signals that arrive before the wait and consumes them in order', () => {
    const twice = workflow(`
  - step: first
    tool: { kind: javascript, code: "return 1" }
    next: a
  - step: a
    tool: { kind: wait, signal: go }
    next: b
  - step: b
    tool: { kind: wait, signal: go }
`);
    const h = new PlannerHarness(twice).start();
    h.signal('go', { n: 1 });
    h.signal('go', { n: 2 });
    h.signal('go', { n: 3 });
    expect(h.state.signals?.go).toHaveLength(3);
    h.complete('first');
    expect(h.state.results.a).toEqual({ value: { n: 1 } });
    expect(h.state.results.b).toEqual({ value: { n: 2 } });
    expect(h.state.status).toBe('COMPLETED');
    expect(h.state.signals?.go?.map((s) => s.payload)).toEqual([{ n: 3 }]);
  });

  it('takes only a signal whose payload passes `when`, leaving the others pending', () => {
    const filtered = workflow(
      `
  - step: approve
    tool: { kind: wait, signal: approval, when: "{{ signal.order == workload.order }}" }
`,
      'workload: { order: 7 }',
    );
    const h = new PlannerHarness(filtered).start();
    h.signal('approval', { order: 6 });
    expect(h.state.steps.approve?.status).toBe('RUNNING');
    h.signal('approval', { order: 7, ok: true });
    expect(h.state.results.approve).toEqual({ value: { order: 7, ok: true } });
    expect(h.state.signals?.approval?.map((s) => s.payload)).toEqual([{ order: 6 }]);
    expect(h.state.status).toBe('COMPLETED');
  });

  it('gives a signal to the wait that parked first', () => {
    const parallel = workflow(`
  - step: start
    next:
      spec: { mode: inclusive }
      arcs: [{ step: left }, { step: right }]
  - step: left
    tool: { kind: wait, signal: go }
  - step: right
    tool: { kind: wait, signal: go }
`);
    const h = new PlannerHarness(parallel).start();
    h.signal('go', { to: 'first' });
    expect(h.state.steps.left?.status).toBe('COMPLETED');
    expect(h.state.steps.right?.status).toBe('RUNNING');
    h.signal('go', { to: 'second' });
    expect(h.state.results.right).toEqual({ value: { to: 'second' } });
  });

  it('fails the step when `when` does not render', () => {
    const broken = workflow(`
  - step: approve
    tool: { kind: wait, signal: approval, when: "{{ signal.nope() }}" }
`);
    const h = new PlannerHarness(broken).start();
    h.signal('approval', {});
    expect(h.state.status).toBe('FAILED');
    expect(h.state.error).toMatchObject({ step: 'approve', kind: 'template' });
  });
});

describe('the timeout of a wait', () => {
  const timed = (retry: string): ReturnType<typeof workflow> =>
    workflow(
      `
  - step: approve
    tool: { kind: wait, signal: approval, timeout: "{{ workload.patience }}" }
${retry}
    next:
      - step: escalate
        when: "{{ output.status == 'error' }}"
      - step: ship
  - step: escalate
  - step: ship
`,
      'workload: { patience: 30 }',
    );

  it('arms a durable timer due after `timeout` seconds', () => {
    const h = new PlannerHarness(timed('')).start();
    expect(h.ofType(EventType.TimerScheduled).map((e) => e.payload)).toEqual([
      expect.objectContaining({ purpose: 'wait', step: 'approve', due_at: '2025-01-01T00:00:30.000Z' }),
    ]);
  });

  it('fails the step with a timeout error when no policy routes it', () => {
    const h = new PlannerHarness(timed('')).start();
    h.fireTimers();
    expect(h.state.status).toBe('FAILED');
    expect(h.state.error).toMatchObject({
      step: 'approve',
      kind: 'timeout',
      message: 'no signal "approval" arrived by 2025-01-01T00:00:30.000Z',
    });
  });

  it('routes the timeout to an error arc through a policy that continues', () => {
    const h = new PlannerHarness(
      timed(`    retry:\n      - when: "{{ error.kind == 'timeout' }}"\n        then: { do: continue }`),
    ).start();
    h.fireTimers();
    expect(h.trace()).toEqual(['enter approve', 'exit approve', 'enter escalate', 'exit escalate']);
    expect(h.state.results.approve).toEqual({
      value: { status: 'error', error: expect.objectContaining({ kind: 'timeout', code: 'signal_timeout' }) },
    });
    expect(h.state.status).toBe('COMPLETED');
  });

  it('waits one more timeout per retry, then fails', () => {
    const h = new PlannerHarness(
      timed(`    retry:\n      - when: "{{ error.code == 'signal_timeout' }}"\n        then: { max_attempts: 2 }`),
    ).start();
    h.fireTimers();
    expect(h.ofType(EventType.TimerScheduled)).toHaveLength(2);
    expect(h.state.status).toBe('RUNNING');
    h.fireTimers();
    expect(h.state.status).toBe('FAILED');
    expect(h.state.error?.message).toContain('retry attempts exhausted (2 of 2)');
  });

  it('is ignored once a signal ended the wait, and does not hold the execution open', () => {
    const h = new PlannerHarness(timed('')).start();
    h.signal('approval', { ok: true });
    expect(h.state.status).toBe('COMPLETED');
    expect(Object.values(h.state.timers).map((timer) => timer.fired)).toEqual([false]);
  });
});
