import { EventType } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

const playbook = workflow(`
  - step: work
    tool: { kind: python, code: "result = 1" }
`);

describe('onCommandAbandoned', () => {
  it("re-issues the same run's command as attempt + 1, then fails the step at max_attempts", () => {
    const h = new PlannerHarness(playbook).start();
    const first = h.command('work');
    h.abandon('work');
    const second = h.command('work');
    expect(second).toMatchObject({ runId: first.runId, attempt: 2, maxAttempts: 3 });
    expect(second.commandId).not.toBe(first.commandId);
    h.abandon('work');
    expect(h.command('work').attempt).toBe(3);
    h.abandon('work');
    expect(h.ofType(EventType.CommandIssued)).toHaveLength(3);
    expect(h.state.status).toBe('FAILED');
    expect(h.state.error).toEqual({ step: 'work', kind: 'internal', message: 'lease expired after 3 attempts' });
  });

  it('re-issues once for a duplicate abandonment', () => {
    const h = new PlannerHarness(playbook).start();
    const first = h.command('work');
    h.abandon('work');
    const duplicate = h.append({
      type: EventType.CommandAbandoned,
      executionId: h.executionId,
      commandId: first.commandId,
      payload: { attempt: 1, reason: 'lease expired' },
    });
    expect(h.batches.get(duplicate.event_id)).toEqual([]);
    expect(h.ofType(EventType.CommandIssued)).toHaveLength(2);
  });

  it('gives a command issued by an error retry its own lease budget', () => {
    const retrying = workflow(`
  - step: work
    tool: { kind: python, code: "result = 1" }
    retry: { when: "{{ true }}", max_attempts: 5, initial_delay: 0 }
`);
    const h = new PlannerHarness(retrying).start();
    h.fail('work', { kind: 'code', message: 'x' });
    h.fireTimers();
    expect(h.command('work')).toMatchObject({ attempt: 2, maxAttempts: 4 });
    h.abandon('work');
    expect(h.command('work')).toMatchObject({ attempt: 3, maxAttempts: 4 });
  });

  it('issues the next attempt of a command whose worker was lost to run alone, and fails the step as suspected poison when it is lost again', () => {
    const h = new PlannerHarness(playbook).start();
    expect(h.command('work').runAlone).toBeUndefined();
    h.abandon('work', { workerLost: true });
    const second = h.command('work');
    expect(second).toMatchObject({ attempt: 2, runAlone: true });
    expect(h.ofType(EventType.CommandIssued).at(-1)?.payload).toMatchObject({ spec: { run_alone: true } });
    h.abandon('work', { workerLost: true });
    expect(h.ofType(EventType.CommandIssued)).toHaveLength(2);
    expect(h.state.status).toBe('FAILED');
    expect(h.ofType(EventType.StepExit).at(-1)?.payload).toMatchObject({
      status: 'FAILED',
      error: {
        kind: 'internal',
        code: 'suspected_poison',
        message: expect.stringContaining('suspected poison: the worker running step work died or stopped answering on 2 attempts'),
      },
    });
  });

  it('runs a lost command alone until it completes, and an admin reclaim is no death', () => {
    const h = new PlannerHarness(playbook).start();
    h.abandon('work');
    expect(h.command('work')).toMatchObject({ attempt: 2 });
    expect(h.command('work').runAlone).toBeUndefined();
    h.abandon('work', { workerLost: true });
    expect(h.command('work')).toMatchObject({ attempt: 3, runAlone: true });
    h.complete('work', { ok: true });
    expect(h.state.status).toBe('COMPLETED');
  });

  it('does not call a death poison once the command said it no longer ran alone: it runs alone again', () => {
    const h = new PlannerHarness(playbook).start();
    h.abandon('work', { workerLost: true });
    const alone = h.command('work');
    h.append({
      type: EventType.CommandHeartbeat,
      executionId: h.executionId,
      commandId: alone.commandId,
      payload: { worker_id: 'w', lease_until: '2025-01-01T00:01:00.000Z', alone: false },
    });
    h.abandon('work', { workerLost: true });
    expect(h.state.status).toBe('RUNNING');
    expect(h.command('work')).toMatchObject({ attempt: 3, runAlone: true });
  });
});
