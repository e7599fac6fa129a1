import { EventType } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

describe('completeStep', () => {
  it('applies the step set before the arcs, as one ctx.updated, then exits, then the fired arc set', () => {
    const playbook = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    set:
      ctx.has_more: "{{ output.data.more }}"
      ctx.seen: "{{ fetch.data.items | length }}"
    next:
      - step: more
        when: "{{ ctx.has_more == true }}"
        set: { ctx.computed: 200, ctx.message: "saw {{ ctx.seen }}" }
      - step: done
  - step: more
  - step: done
`);
    const h = new PlannerHarness(playbook).start();
    const completed = h.complete('fetch', { more: true, items: [1, 2] });
    const batch = h.batches.get(completed.event_id)!;
    expect(batch.map((d) => d.type)).toEqual([
      EventType.CtxUpdated,
      EventType.StepExit,
      EventType.CtxUpdated,
      EventType.StepEnter,
      EventType.StepExit,
      EventType.ExecutionCompleted,
    ]);
    expect(batch[0]?.payload).toEqual({ set: { has_more: true, seen: 2 }, step: 'fetch' });
    expect(batch[1]?.payload).toMatchObject({ status: 'COMPLETED', next: ['more'], result: { more: true, items: [1, 2] } });
    expect(batch[2]?.payload).toEqual({ set: { computed: 200, message: 'saw 2' }, step: 'fetch' });
    expect(h.state.ctx).toMatchObject({ has_more: true, seen: 2, computed: 200, message: 'saw 2' });
  });

  it('keeps literal set values typed (a number stays a number, a list a list)', () => {
    const playbook = workflow(`
  - step: start
    next:
      - step: end
        set: { ctx.computed: 200, ctx.flags: [true, 1], ctx.cfg: { a: "{{ 1 + 1 }}" } }
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.state.ctx).toEqual({ computed: 200, flags: [true, 1], cfg: { a: 2 } });
  });

  it('writes step.* keys into the result that arcs and later steps read', () => {
    const playbook = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    set: { step.total: "{{ fetch.count * 2 }}" }
    next:
      - step: end
        when: "{{ fetch.total == 6 }}"
  - step: end
    next:
      - step: bad
        when: "{{ fetch.total != 6 }}"
  - step: bad
`);
    const h = new PlannerHarness(playbook).start();
    const ref = h.ref({ count: 3 });
    h.complete('fetch', null, { result_ref: ref });
    const exit = h.ofType(EventType.StepExit)[0]!;
    expect(exit.payload).toMatchObject({ result: { count: 3, total: 6 }, next: ['end'] });
    expect(exit.payload.result_ref).toBeUndefined();
    expect(h.trace()).toEqual(['enter fetch', 'exit fetch', 'enter end', 'exit end']);
  });

  it('replaces a non-object result when step.* keys are written', () => {
    const playbook = workflow(`
  - step: calc
    tool: { kind: python, code: "result = 1" }
    set: { step.doubled: "{{ calc * 2 }}" }
`);
    const h = new PlannerHarness(playbook).start();
    h.complete('calc', 21);
    expect(h.ofType(EventType.StepExit)[0]?.payload.result).toEqual({ doubled: 42 });
  });

  it('keeps a result stored by reference as a ref on step.exit and reads it through resolve', () => {
    const playbook = workflow(`
  - step: big
    tool: { kind: python, code: "result = 1" }
    next:
      - step: end
        when: "{{ big.rows | length == 3 and output.data.rows[0] == 1 }}"
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    const ref = h.ref({ rows: [1, 2, 3] });
    h.complete('big', null, { result_ref: ref });
    expect(h.ofType(EventType.StepExit)[0]?.payload).toMatchObject({ result_ref: ref, next: ['end'] });
    expect(h.state.status).toBe('COMPLETED');
  });

  it('records the ctx writes of worker-side policies before the step set', () => {
    const playbook = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    set: { ctx.next_page: "{{ ctx.page + 1 }}" }
`);
    const h = new PlannerHarness(playbook).start();
    const completed = h.complete('fetch', {}, { ctx: { page: 4 } });
    const batch = h.batches.get(completed.event_id)!;
    expect(batch.slice(0, 2).map((d) => d.payload)).toEqual([
      { set: { page: 4 }, step: 'fetch' },
      { set: { next_page: 5 }, step: 'fetch' },
    ]);
  });

  it('exposes event {name, step, payload} to arcs', () => {
    const playbook = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    next:
      - step: end
        when: "{{ event.name == 'command.completed' and event.step == 'fetch' and event.payload.result.ok }}"
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    h.complete('fetch', { ok: true });
    expect(h.trace()).toContain('enter end');
  });

  it('fails the step with kind template and the expression when an arc does not render', () => {
    const playbook = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    next:
      - step: end
        when: "{{ fetch.items.nope() }}"
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    h.complete('fetch', { items: [] });
    const exit = h.ofType(EventType.StepExit)[0]!;
    expect(exit.payload).toMatchObject({ status: 'FAILED', error: { kind: 'template', step: 'fetch' } });
    expect(h.state.status).toBe('FAILED');
    expect(h.state.error).toEqual({
      step: 'fetch',
      kind: 'template',
      message: expect.stringContaining('{{ fetch.items.nope() }}'),
      expression: '{{ fetch.items.nope() }}',
    });
  });

  it('fails the step when its set does not render, before any exit COMPLETED', () => {
    const playbook = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    set: { ctx.x: "{{ fetch.a.b() }}" }
    next: [end]
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    h.complete('fetch', { a: {} });
    expect(h.ofType(EventType.StepExit).map((e) => e.payload.status)).toEqual(['FAILED']);
    expect(h.state.error?.kind).toBe('template');
  });

  it('fails the step when a fired arc set does not render', () => {
    const playbook = workflow(`
  - step: start
    next:
      - step: end
        set: { ctx.x: "{{ ctx.nope() }}" }
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.StepExit).map((e) => e.payload.status)).toEqual(['FAILED']);
    expect(h.types()).not.toContain(EventType.CtxUpdated);
  });
});

describe('completeStep in a loop-back pagination (RESULT_SHAPES s8)', () => {
  it('counts pages with a step set that the arcs read, then leaves the loop', () => {
    const playbook = workflow(
      `
  - step: init
    next:
      - step: fetch_page
        set: { ctx.current_page: "{{ workload.current_page }}", ctx.iteration_count: 0 }
  - step: fetch_page
    tool: { kind: http, url: "http://x", params: { page: "{{ ctx.current_page }}" } }
    set:
      ctx.has_more: "{{ fetch_page.data.paging.hasMore }}"
      ctx.iteration_count: "{{ ctx.iteration_count + 1 }}"
      ctx.current_page: "{{ (ctx.current_page | int) + 1 }}"
    next:
      - step: fetch_page
        when: "{{ ctx.has_more == true and ctx.iteration_count < 5 }}"
      - step: end
  - step: end
`,
      'workload: { current_page: "1" }',
    );
    const h = new PlannerHarness(playbook).start();
    h.complete('fetch_page', { data: { paging: { hasMore: true } } });
    h.complete('fetch_page', { data: { paging: { hasMore: false } } });
    expect(h.state.status).toBe('COMPLETED');
    expect(h.state.ctx).toMatchObject({ iteration_count: 2, current_page: 3, has_more: false });
    expect(h.ofType(EventType.StepEnter).map((e) => `${e.payload.step}#${e.payload.activation}`)).toEqual([
      'init#1',
      'fetch_page#1',
      'fetch_page#2',
      'end#1',
    ]);
  });
});

describe('completeStep with arc set', () => {
  it("writes an arc's step.* keys into the result before the exit, and its ctx keys after", () => {
    const playbook = workflow(`
  - step: start
    next:
      - step: end
        set: { step.routed: "{{ 'yes' }}", ctx.via: start }
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.StepExit)[0]?.payload).toMatchObject({ result: { routed: 'yes' }, next: ['end'] });
    expect(h.state.ctx['via']).toBe('start');
  });

  it('enters a target once when two arcs of an inclusive step lead to it', () => {
    const playbook = workflow(`
  - step: start
    next: { spec: { mode: inclusive }, arcs: [{ step: end }, { step: end }] }
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.StepExit)[0]?.payload.next).toEqual(['end']);
    expect(h.trace()).toEqual(['enter start', 'exit start', 'enter end', 'exit end']);
  });
});
