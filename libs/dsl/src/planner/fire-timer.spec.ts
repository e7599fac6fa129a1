import { EventType } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

const retrying = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    retry: 3
`);

describe('onTimerFired', () => {
  it('issues the next attempt once, even when the timer fires twice', () => {
    const h = new PlannerHarness(retrying).start();
    h.fail('fetch', { kind: 'timeout', message: 'slow', retryable: true });
    const timer = Object.values(h.state.timers)[0]!;
    h.fireTimers();
    const again = h.append({
      type: EventType.TimerFired,
      executionId: h.executionId,
      payload: { timer_id: timer.timerId, purpose: 'retry' },
    });
    expect(h.batches.get(again.event_id)).toEqual([]);
    expect(h.ofType(EventType.CommandIssued)).toHaveLength(2);
  });

  it('ignores an unknown timer and the timer of a run that ended', () => {
    const h = new PlannerHarness(retrying).start();
    const unknown = h.append({ type: EventType.TimerFired, executionId: h.executionId, payload: { timer_id: 'nope', purpose: 'retry' } });
    expect(h.batches.get(unknown.event_id)).toEqual([]);
  });

  it('completes a sleep step with {slept_until: due_at}', () => {
    const playbook = workflow(
      `
  - step: nap
    tool: { kind: sleep, seconds: "{{ pause }}" }
    next:
      - step: end
        when: "{{ event.name == 'timer.fired' and nap.slept_until == '2025-01-01T00:00:02.500Z' }}"
  - step: end
`,
      'workload: { pause: 2.5 }',
    );
    const h = new PlannerHarness(playbook).start();
    const [scheduled] = h.ofType(EventType.TimerScheduled);
    expect(scheduled?.payload).toEqual({
      timer_id: expect.any(String),
      purpose: 'sleep',
      step: 'nap',
      run_id: h.ofType(EventType.StepEnter)[0]!.payload.run_id,
      due_at: '2025-01-01T00:00:02.500Z',
    });
    expect(h.types()).not.toContain(EventType.CommandIssued);
    h.fireTimers();
    expect(h.ofType(EventType.StepExit)[0]?.payload.result).toEqual({ slept_until: '2025-01-01T00:00:02.500Z' });
    expect(h.trace()).toContain('enter end');
    expect(h.state.status).toBe('COMPLETED');
  });
});
