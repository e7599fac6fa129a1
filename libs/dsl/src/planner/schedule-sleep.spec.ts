import { EventType } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

describe('scheduleSleep', () => {
  it('waits until a rendered ISO time', () => {
    const playbook = workflow(
      `
  - step: nap
    tool: { kind: sleep, until: "{{ wake }}" }
`,
      'workload: { wake: "2025-01-02T03:04:05Z" }',
    );
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.TimerScheduled)[0]?.payload.due_at).toBe('2025-01-02T03:04:05.000Z');
  });

  it('accepts seconds rendered as text', () => {
    const playbook = workflow(
      `
  - step: nap
    tool: { kind: sleep, seconds: "{{ pause }}" }
`,
      'workload: { pause: "10" }',
    );
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.TimerScheduled)[0]?.payload.due_at).toBe('2025-01-01T00:00:10.000Z');
  });

  it.each([
    ['seconds: "{{ pause }}"', 'workload: { pause: -1 }', '"seconds" must be a non-negative number'],
    ['seconds: "{{ pause }}"', 'workload: { pause: "soon" }', '"seconds" must be a non-negative number'],
    ['until: "{{ wake }}"', 'workload: { wake: "not a time" }', '"until" must be an ISO time'],
    ['seconds: "{{ pause }}"', 'workload: { pause: 1e30 }', 'the due time is beyond the year 275760 ("seconds" too large)'],
  ])('fails the step on %s with %s', (config, workload, message) => {
    const playbook = workflow(
      `
  - step: nap
    tool: { kind: sleep, ${config} }
`,
      workload,
    );
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.StepExit)[0]?.payload.status).toBe('FAILED');
    expect(h.state.error?.message).toContain(message);
  });
});
