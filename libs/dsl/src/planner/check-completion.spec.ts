import { EventType } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

const py = '{ kind: python, code: "result = 1" }';

describe('checkCompletion', () => {
  it('takes the result of executor.final_step when it completed', () => {
    const playbook = workflow(
      `
  - step: start
    tool: ${py}
    next: { spec: { mode: inclusive }, arcs: [{ step: report }, { step: cleanup }] }
  - step: report
    tool: ${py}
  - step: cleanup
    tool: ${py}
`,
      'executor: { spec: { entry_step: start, final_step: report } }',
    );
    const h = new PlannerHarness(playbook).start();
    h.complete('start');
    h.complete('report', { summary: 1 });
    expect(h.state.status).toBe('RUNNING');
    h.complete('cleanup', { cleaned: true });
    expect(h.ofType(EventType.ExecutionCompleted)[0]?.payload).toEqual({ result: { summary: 1 } });
  });

  it('gives a result stored by reference as result_ref', () => {
    const playbook = workflow(`
  - step: big
    tool: ${py}
`);
    const h = new PlannerHarness(playbook).start();
    const ref = h.ref({ rows: [1] });
    h.complete('big', null, { result_ref: ref });
    expect(h.ofType(EventType.ExecutionCompleted)[0]?.payload).toEqual({ result_ref: ref });
  });

  it('does not offer the result of a branch that ended quietly; on_no_match complete does', () => {
    const playbook = workflow(`
  - step: start
    tool: ${py}
    next: { spec: { mode: inclusive }, arcs: [{ step: main }, { step: watcher }] }
  - step: main
    tool: ${py}
  - step: watcher
    tool: ${py}
    next:
      spec: { mode: exclusive, on_no_match: quiet }
      arcs: [{ step: alarm, when: false }]
  - step: alarm
`);
    const h = new PlannerHarness(playbook).start();
    h.complete('start');
    h.complete('main', { main: true });
    h.complete('watcher', { watcher: true });
    expect(h.state.status).toBe('COMPLETED');
    expect(h.state.lastCompletedStep).toBe('watcher');
    expect(h.state.result).toEqual({ main: true });
  });

  it('completes with a null result when only quiet branches completed', () => {
    const playbook = workflow(`
  - step: only
    tool: ${py}
    next: { spec: { on_no_match: quiet }, arcs: [{ step: only, when: false }] }
`);
    const h = new PlannerHarness(playbook).start();
    h.complete('only', { x: 1 });
    expect(h.ofType(EventType.ExecutionCompleted)[0]?.payload).toEqual({ result: null });
  });

  it('offers the result of a quiet step that fired an arc', () => {
    const playbook = workflow(`
  - step: start
    tool: ${py}
    next: { spec: { mode: inclusive, on_no_match: quiet }, arcs: [{ step: a }] }
  - step: a
    tool: ${py}
    next: { spec: { on_no_match: quiet }, arcs: [{ step: a, when: false }] }
`);
    const h = new PlannerHarness(playbook).start();
    h.complete('start', { start: true });
    h.complete('a', { a: true });
    expect(h.state.result).toEqual({ start: true });
  });
});
