import { EventType } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

const py = '{ kind: python, code: "result = 1" }';

/** fanout_reduce_phase6: start fans out (inclusive) to two branches that join on reduce_customer. */
const fanoutReduce = workflow(`
  - step: start
    tool: ${py}
    next:
      spec: { mode: inclusive }
      arcs: [{ step: normalize_customer }, { step: enrich_customer }]
  - step: normalize_customer
    tool: ${py}
    next: { spec: { mode: exclusive }, arcs: [{ step: reduce_customer }] }
  - step: enrich_customer
    tool: ${py}
    next: { spec: { mode: exclusive }, arcs: [{ step: reduce_customer }] }
  - step: reduce_customer
    tool: ${py}
`);

/** control_flow_workbook: exclusive hot/cold routing; the hot path fans out to two tasks that join on end. */
const controlFlow = workflow(
  `
  - step: start
    tool: ${py}
    next: [eval_flag]
  - step: eval_flag
    tool: ${py}
    next:
      spec: { mode: exclusive }
      arcs:
        - { step: hot_path, when: "{{ eval_flag.is_hot == true }}" }
        - { step: cold_path, when: "{{ eval_flag.is_hot == false }}" }
  - step: hot_path
    tool: ${py}
    next: { spec: { mode: inclusive }, arcs: [{ step: hot_task_a }, { step: hot_task_b }] }
  - step: hot_task_a
    tool: ${py}
    next: [end]
  - step: hot_task_b
    tool: ${py}
    next: [end]
  - step: cold_path
    tool: ${py}
    next: [cold_task]
  - step: cold_task
    tool: ${py}
    next: [end]
  - step: end
    tool: ${py}
`,
  'workload: { temperature_c: 30 }',
);

function entersOf(h: PlannerHarness, step: string) {
  return h.ofType(EventType.StepEnter).filter((e) => e.payload.step === step);
}

describe('releaseArrivals (fan-in)', () => {
  it('runs the join of an inclusive fan-out once, after both branches (fanout_reduce)', () => {
    const h = new PlannerHarness(fanoutReduce).start();
    h.complete('start', { status: 'ok' });
    expect(
      h
        .openCommands()
        .map((c) => c.step)
        .sort(),
    ).toEqual(['enrich_customer', 'normalize_customer']);
    h.complete('normalize_customer', { normalized: true });
    expect(entersOf(h, 'reduce_customer')).toHaveLength(0);
    expect(h.state.pending['reduce_customer']).toHaveLength(1);
    h.complete('enrich_customer', { enriched: true });
    const enters = entersOf(h, 'reduce_customer');
    expect(enters).toHaveLength(1);
    const branchRuns = ['normalize_customer', 'enrich_customer'].map((s) => h.state.steps[s]!.lastRunId);
    expect(enters[0]!.payload.arrivals).toEqual(branchRuns);
    expect(h.state.pending).toEqual({});
    h.complete('reduce_customer', { reduced: true });
    expect(h.state.status).toBe('COMPLETED');
    expect(h.state.result).toEqual({ reduced: true });
    expect(entersOf(h, 'reduce_customer')).toHaveLength(1);
  });

  it('joins the hot path once at end, whichever branch finishes first (control_flow_workbook)', () => {
    const h = new PlannerHarness(controlFlow).start();
    h.complete('start', { status: 'initialized' });
    h.complete('eval_flag', { is_hot: true, message: 'hot' });
    h.complete('hot_path', { status: 'routing_to_parallel' });
    h.complete('hot_task_b', { who: 'B' });
    expect(entersOf(h, 'end')).toHaveLength(0);
    h.complete('hot_task_a', { who: 'A' });
    expect(entersOf(h, 'end')).toHaveLength(1);
    expect(entersOf(h, 'cold_path')).toHaveLength(0);
    h.complete('end', { status: 'complete' });
    expect(h.state.status).toBe('COMPLETED');
  });

  it('enters end at once on the single cold branch', () => {
    const h = new PlannerHarness(controlFlow).start();
    h.complete('start');
    h.complete('eval_flag', { is_hot: false });
    h.complete('cold_path');
    h.complete('cold_task');
    expect(entersOf(h, 'end')).toHaveLength(1);
    expect(entersOf(h, 'end')[0]!.payload.arrivals).toHaveLength(1);
  });

  it('releases the join when the other branch ends without reaching it', () => {
    const playbook = workflow(`
  - step: start
    next: { spec: { mode: inclusive }, arcs: [{ step: a }, { step: b }] }
  - step: a
    tool: ${py}
    next: [join]
  - step: b
    tool: ${py}
    next:
      - { step: join, when: "{{ b.go }}" }
  - step: join
`);
    const h = new PlannerHarness(playbook).start();
    h.complete('a');
    expect(entersOf(h, 'join')).toHaveLength(0);
    h.complete('b', { go: false });
    expect(entersOf(h, 'join')).toHaveLength(1);
    expect(h.state.status).toBe('COMPLETED');
  });

  it('holds the join while the other branch pages through a loop-back, then runs it once', () => {
    const playbook = workflow(`
  - step: start
    next: { spec: { mode: inclusive }, arcs: [{ step: pages }, { step: side }] }
  - step: pages
    tool: ${py}
    set: { ctx.page: "{{ (ctx.page | default(0)) + 1 }}" }
    next:
      - { step: pages, when: "{{ pages.more }}" }
      - { step: join }
  - step: side
    tool: ${py}
    next: [join]
  - step: join
`);
    const h = new PlannerHarness(playbook).start();
    h.complete('side');
    h.complete('pages', { more: true });
    h.complete('pages', { more: true });
    expect(entersOf(h, 'join')).toHaveLength(0);
    h.complete('pages', { more: false });
    expect(entersOf(h, 'pages')).toHaveLength(3);
    expect(entersOf(h, 'join')).toHaveLength(1);
    expect(entersOf(h, 'join')[0]!.payload.arrivals).toHaveLength(2);
    expect(h.state.ctx['page']).toBe(3);
    expect(h.state.status).toBe('COMPLETED');
  });

  it('does not deadlock two pending targets that can reach each other (the running one still holds the other)', () => {
    const playbook = workflow(`
  - step: start
    next: { spec: { mode: inclusive }, arcs: [{ step: c }, { step: d }] }
  - step: c
    tool: ${py}
    next: [{ step: d, when: false }]
  - step: d
    tool: ${py}
    next: [{ step: c, when: false }]
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.openCommands().map((c) => c.step)).toEqual(['c']);
    h.complete('c');
    expect(h.openCommands().map((c) => c.step)).toEqual(['d']);
    h.complete('d');
    expect(h.state.status).toBe('COMPLETED');
  });

  it('waits for a branch that sleeps on a timer', () => {
    const playbook = workflow(`
  - step: start
    next: { spec: { mode: inclusive }, arcs: [{ step: nap }, { step: quick }] }
  - step: nap
    tool: { kind: sleep, seconds: 5 }
    next: [join]
  - step: quick
    next: [join]
  - step: join
`);
    const h = new PlannerHarness(playbook).start();
    expect(entersOf(h, 'join')).toHaveLength(0);
    h.fireTimers();
    expect(entersOf(h, 'join')).toHaveLength(1);
    expect(h.state.status).toBe('COMPLETED');
  });
});
