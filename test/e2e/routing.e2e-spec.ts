import { EventType } from '@noetl/event-kernel';
import { e2ePlaybook, startE2eApp, type E2eApp } from '../support/e2e-app';
import { enteredSteps, ofType, positionOf, terminalEvents } from '../support/ledger-checks';

// One app boot per file plus executions that wait on real timers and servers.
jest.setTimeout(30_000);

describe('routing over the REST API', () => {
  let app: E2eApp;

  beforeAll(async () => {
    app = await startE2eApp();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('runs a linear chain in order, each step reading the previous result, and ends with one execution.completed', async () => {
    const detail = await app.client.run(e2ePlaybook('linear'), { base: 3 });

    expect(detail).toMatchObject({ status: 'COMPLETED', result: { n: 49 }, error: null });
    expect(detail.steps.map((s) => [s.step, s.status, s.attempts])).toEqual([
      ['double', 'COMPLETED', 1],
      ['add_one', 'COMPLETED', 1],
      ['square', 'COMPLETED', 1],
    ]);
    const events = await app.client.events(detail.execution_id);
    expect(enteredSteps(events)).toEqual(['double', 'add_one', 'square']);
    expect(ofType(events, EventType.CommandCompleted)).toHaveLength(3);
    expect(terminalEvents(events).map((e) => e.event_type)).toEqual([EventType.ExecutionCompleted]);
    expect(events.at(-1)?.event_type).toBe(EventType.ExecutionCompleted);
  });

  it('fires only the first matching arc of an exclusive next', async () => {
    const detail = await app.client.run(e2ePlaybook('exclusive'));

    expect(detail).toMatchObject({ status: 'COMPLETED', result: { route: 'large' } });
    expect(detail.steps.map((s) => s.step)).toEqual(['start', 'large']);
    const events = await app.client.events(detail.execution_id);
    expect(enteredSteps(events)).toEqual(['start', 'large']);
    const startExit = ofType(events, EventType.StepExit).find((e) => e.step === 'start');
    expect(startExit?.payload).toMatchObject({ status: 'COMPLETED', next: ['large'] });
  });

  it('takes the fallback arc of an exclusive next when no condition matches', async () => {
    const detail = await app.client.run(e2ePlaybook('exclusive'), { amount: 5 });

    expect(detail).toMatchObject({ status: 'COMPLETED', result: { route: 'small' } });
    expect(enteredSteps(await app.client.events(detail.execution_id))).toEqual(['start', 'small']);
  });

  it('fans out to every matching arc of an inclusive next and runs the fan-in step once, after both branches', async () => {
    const detail = await app.client.run(e2ePlaybook('inclusive'));

    expect(detail).toMatchObject({ status: 'COMPLETED', result: { joined: 'left|right+again' } });
    const events = await app.client.events(detail.execution_id);
    const entered = enteredSteps(events);
    expect(entered.filter((s) => s === 'join')).toEqual(['join']);
    expect(entered).not.toContain('never');
    expect([...entered].sort()).toEqual(['join', 'left', 'right', 'right_again', 'start']);
    const joinEnter = positionOf(events, (e) => e.event_type === EventType.StepEnter && e.step === 'join');
    for (const branchEnd of ['left', 'right_again']) {
      const exit = positionOf(events, (e) => e.event_type === EventType.StepExit && e.step === branchEnd);
      expect({ branchEnd, exitBeforeJoin: exit >= 0 && exit < joinEnter }).toEqual({ branchEnd, exitBeforeJoin: true });
    }
    expect(detail.steps.filter((s) => s.step === 'join')).toEqual([expect.objectContaining({ status: 'COMPLETED', attempts: 1 })]);
    expect(ofType(events, EventType.CommandIssued).filter((e) => e.step === 'join')).toHaveLength(1);
    expect(terminalEvents(events)).toHaveLength(1);
  });

  it('applies step-level set before the arcs, arc-level set on the fired arc, and task-level set inside a pipeline', async () => {
    const detail = await app.client.run(e2ePlaybook('set-scopes'));

    // ctx.total = (seed * 2) + 1 = 11 was set by `compute` before its arcs ran, so `report` (not `wrong_total`) was chosen.
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { count: 5, label: 'arc-5', total: 11, bare_total: 11 } });
    expect(detail.steps.map((s) => s.step)).toEqual(['start', 'compute', 'report']);
    const events = await app.client.events(detail.execution_id);
    const ctxWrites = ofType(events, EventType.CtxUpdated).map((e) => (e.payload as { set: Record<string, unknown> }).set);
    expect(Object.assign({}, ...ctxWrites)).toEqual(expect.objectContaining({ count: 5, label: 'arc-5', total: 11 }));
    expect(enteredSteps(events)).not.toContain('wrong_total');
  });
});
