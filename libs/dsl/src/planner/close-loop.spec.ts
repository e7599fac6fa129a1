import { EventType, LOOP_RESULT_MEDIA_TYPE, type PayloadRef } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

const body = '{ kind: python, code: "result = 1" }';
const boom = { kind: 'code', message: 'ValueError: bad row' };

describe('closeLoop', () => {
  it('emits loop.done once, with results in collection order from out-of-order frame commits', () => {
    const playbook = workflow(
      `
  - step: process
    loop: { in: "{{ items }}", iterator: item, spec: { mode: parallel, max_in_flight: 3, frame: { max_rows: 2 } } }
    tool: ${body}
    next:
      - step: end
        when: "{{ event.name == 'loop.done' and fanin.status == 'complete' }}"
  - step: end
`,
      'workload: { items: [1, 2, 3, 4, 5] }',
    );
    const h = new PlannerHarness(playbook).start();
    h.commitFrame('process', 2, [{ n: 5 }]);
    h.commitFrame('process', 0, [{ n: 1 }, { n: 2 }], { byRef: true });
    expect(h.types()).not.toContain(EventType.LoopDone);
    const last = h.commitFrame('process', 1, [{ n: 3 }, { n: 4 }]);
    const results = [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }];
    expect(
      h.batches
        .get(last.event_id)!
        .map((d) => d.type)
        .slice(0, 3),
    ).toEqual([EventType.LoopDone, EventType.StageClosed, EventType.StepExit]);
    const loop = h.ofType(EventType.LoopStarted)[0]!.payload;
    expect(h.ofType(EventType.LoopDone)).toHaveLength(1);
    expect(h.ofType(EventType.LoopDone)[0]?.payload).toEqual({
      loop_id: loop.loop_id,
      step: 'process',
      run_id: loop.run_id,
      status: 'complete',
      total: 5,
      succeeded: 5,
      failed: 0,
      results,
    });
    expect(h.ofType(EventType.StageClosed)[0]?.payload).toEqual({
      stage_id: loop.stage_id,
      loop_id: loop.loop_id,
      committed: 3,
      failed: 0,
    });
    expect(h.ofType(EventType.StepExit)[0]?.payload).toMatchObject({
      status: 'COMPLETED',
      result: { results, stats: { total: 5, succeeded: 5, success: 5, failed: 0 } },
      next: ['end'],
    });
    expect(h.state.status).toBe('COMPLETED');
  });

  it("closes a loop no template reads lean: its result is a manifest of the frames' outputs, staged by ref, never aggregated", () => {
    const playbook = workflow(
      `
  - step: process
    loop: { in: "{{ items }}", iterator: item, spec: { mode: parallel, max_in_flight: 3, frame: { max_rows: 2 } } }
    tool: ${body}
    next: [end]
  - step: end
`,
      'workload: { items: [1, 2, 3, 4, 5] }',
    );
    const h = new PlannerHarness(playbook).start();
    h.commitFrame('process', 2, [{ n: 5 }]);
    h.commitFrame('process', 0, [{ n: 1 }, { n: 2 }], { byRef: true });
    const last = h.commitFrame('process', 1, [{ n: 3 }, { error: boom }]);
    const stored = h.ofType(EventType.FrameCommitted).find((e) => e.payload.frame_index === 0)!.payload.output_ref!;
    const [done] = h.batches.get(last.event_id)!;
    expect(done?.type).toBe(EventType.LoopDone);
    const ref = (done?.payload as { result_ref: PayloadRef }).result_ref;
    expect(done?.payload).not.toHaveProperty('results');
    expect(ref.media_type).toBe(LOOP_RESULT_MEDIA_TYPE);
    expect(done?.staged?.map((staged) => staged.ref)).toEqual([ref]);
    const stats = { total: 5, succeeded: 4, success: 4, failed: 1 };
    expect(h.env.resolve(ref)).toEqual({ items: 5, parts: [{ ref: stored, items: 2 }, { values: [{ n: 3 }, null, { n: 5 }] }], stats });
    expect(h.ofType(EventType.StepExit)[0]?.payload).toMatchObject({ status: 'COMPLETED', result_ref: ref, next: ['end'] });
    expect(h.ofType(EventType.StepExit)[0]?.payload).not.toHaveProperty('result');
    expect(h.state.status).toBe('COMPLETED');
  });

  it('aggregates the results when a template reads them, even from stored frame outputs', () => {
    const playbook = workflow(`
  - step: process
    loop: { in: [1, 2, 3], iterator: item, spec: { frame: { max_rows: 2 } } }
    tool: ${body}
    next: [end]
  - step: end
    tool: { kind: noop, input: { all: "{{ process.results }}" } }
`);
    const h = new PlannerHarness(playbook).start();
    h.commitFrame('process', 0, [1, 2], { byRef: true });
    h.commitFrame('process', 1, [3]);
    expect(h.ofType(EventType.LoopDone)[0]?.payload).toMatchObject({ results: [1, 2, 3] });
    expect(h.ofType(EventType.LoopDone)[0]?.payload).not.toHaveProperty('result_ref');
  });

  it("applies the loop step set once, at loop.done, and the frames' ctx writes in commit order before it", () => {
    const playbook = workflow(`
  - step: process
    loop: { in: [1, 2], iterator: item, spec: { mode: parallel } }
    tool: ${body}
    set: { ctx.count: "{{ process.data | length }}", iter.seen: true, ctx.last: "{{ ctx.cursor }}" }
`);
    const h = new PlannerHarness(playbook).start();
    h.commitFrame('process', 1, ['b'], { ctx: { cursor: 'second-index-first' } });
    const last = h.commitFrame('process', 0, ['a'], { ctx: { cursor: 'first-index-last' } });
    const updates = h.ofType(EventType.CtxUpdated).map((e) => e.payload.set);
    expect(updates).toEqual([{ cursor: 'second-index-first' }, { cursor: 'first-index-last' }, { count: 2, last: 'first-index-last' }]);
    expect(
      h.batches
        .get(last.event_id)!
        .map((d) => d.type)
        .slice(0, 4),
    ).toEqual([EventType.CtxUpdated, EventType.LoopDone, EventType.StageClosed, EventType.CtxUpdated]);
  });

  it('routes a partial loop on fanin.status, with failed rows as null results', () => {
    const playbook = workflow(`
  - step: process
    loop: { in: [1, 2, 3], iterator: item, spec: { mode: parallel } }
    tool: ${body}
    next:
      - step: handle_partial
        when: "{{ fanin.status == 'partial' and fanin.failed == 2 and fanin.done == 3 }}"
      - step: end
        when: "{{ fanin.status == 'complete' }}"
  - step: handle_partial
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    h.commitFrame('process', 0, [{ ok: 1 }]);
    h.commitFrame('process', 1, [{ error: boom }]);
    h.failFrame('process', 2, { kind: 'internal', message: 'worker lost 3 times' });
    expect(h.ofType(EventType.LoopDone)[0]?.payload).toMatchObject({
      status: 'partial',
      total: 3,
      succeeded: 1,
      failed: 2,
      results: [{ ok: 1 }, null, null],
    });
    expect(h.ofType(EventType.StageClosed)[0]?.payload).toMatchObject({ committed: 2, failed: 1 });
    expect(h.trace()).toContain('enter handle_partial');
    expect(h.state.status).toBe('COMPLETED');
  });

  it("fails the loop step with the iterations' errors when nothing routes a partial loop", () => {
    const playbook = workflow(`
  - step: process
    loop: { in: [1, 2, 3], iterator: item, spec: { mode: parallel } }
    tool: ${body}
    next:
      - step: end
        when: "{{ fanin.status == 'complete' }}"
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    h.commitFrame('process', 0, [{ ok: 1 }]);
    h.commitFrame('process', 1, [{ error: boom }]);
    h.failFrame('process', 2, { kind: 'internal', message: 'worker lost' });
    expect(h.ofType(EventType.LoopDone)).toHaveLength(1);
    expect(h.ofType(EventType.StepExit)[0]?.payload.status).toBe('FAILED');
    expect(h.state.error).toEqual({
      step: 'process',
      kind: 'code',
      message:
        '2 of 3 iterations of loop step process failed and no arc handled it: [1] code: ValueError: bad row; [2] internal: worker lost',
    });
  });

  it('quotes at most five iteration errors', () => {
    const playbook = workflow(`
  - step: process
    loop: { in: [1, 2, 3, 4, 5, 6, 7], iterator: item, spec: { frame: { max_rows: 7 } } }
    tool: ${body}
`);
    const h = new PlannerHarness(playbook).start();
    h.commitFrame(
      'process',
      0,
      Array.from({ length: 7 }, () => ({ error: boom })),
    );
    expect(h.state.error?.message).toMatch(/\[4\] code: ValueError: bad row; and 2 more$/);
  });

  it('opens a new epoch with a new loop id when a loop-back arc re-enters the loop step', () => {
    const playbook = workflow(`
  - step: batch
    loop: { in: "{{ [ctx.round | default(0)] }}", iterator: r }
    tool: ${body}
    set: { ctx.round: "{{ (ctx.round | default(0)) + 1 }}" }
    next:
      - step: batch
        when: "{{ ctx.round < 3 }}"
      - step: end
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    for (let round = 0; round < 3; round += 1) h.commitFrame('batch', 0, [{ round }]);
    const started = h.ofType(EventType.LoopStarted).map((e) => e.payload);
    expect(started.map((p) => p.epoch)).toEqual([1, 2, 3]);
    expect(new Set(started.map((p) => p.loop_id)).size).toBe(3);
    expect(started.map((p) => p.collection)).toEqual([[0], [1], [2]]);
    expect(h.ofType(EventType.LoopDone).map((e) => e.payload.results)).toEqual([[{ round: 0 }], [{ round: 1 }], [{ round: 2 }]]);
    expect(h.state.status).toBe('COMPLETED');
  });

  it('closes a cursor loop when a claim comes back empty and nothing is in flight', () => {
    const playbook = workflow(`
  - step: drain
    loop:
      cursor: { kind: postgres, auth: pg, claim: "SELECT 1" }
      iterator: row
      spec: { mode: cursor, frame: { max_rows: 2 } }
    tool: ${body}
`);
    const h = new PlannerHarness(playbook).start();
    h.commitFrame('drain', 0, ['a', 'b']);
    h.commitFrame('drain', 1, [{ error: boom }]);
    expect(h.types()).not.toContain(EventType.LoopDone);
    h.commitFrame('drain', 2, []);
    expect(h.ofType(EventType.LoopDone)[0]?.payload).toMatchObject({
      status: 'partial',
      total: 3,
      succeeded: 2,
      failed: 1,
      results: ['a', 'b', null],
    });
  });

  it('counts a failed cursor frame as one failed iteration', () => {
    const playbook = workflow(`
  - step: drain
    loop:
      cursor: { kind: postgres, auth: pg, claim: "SELECT 1" }
      iterator: row
      spec: { mode: cursor }
    tool: ${body}
    next: [{ step: end, when: "{{ fanin.failed == 1 }}" }]
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    h.failFrame('drain', 0, boom);
    h.commitFrame('drain', 1, []);
    expect(h.ofType(EventType.LoopDone)[0]?.payload).toMatchObject({ total: 1, failed: 1, results: [null] });
    expect(h.state.status).toBe('COMPLETED');
  });

  it('fails the loop step when a frame output it aggregates is not a list of results', () => {
    const playbook = workflow(`
  - step: process
    loop: { in: [1], iterator: item }
    tool: ${body}
    next: [after]
  - step: after
    tool: { kind: noop, input: { all: "{{ process.results }}" } }
`);
    const h = new PlannerHarness(playbook).start();
    const loop = h.loop('process');
    h.append({
      type: EventType.FrameCommitted,
      executionId: h.executionId,
      loopId: loop.loopId,
      payload: {
        frame_id: 'f',
        stage_id: loop.stageId,
        frame_index: 0,
        row_count: 1,
        first_index: 0,
        failed_rows: [],
        output_ref: h.ref({ not: 'a list' }),
      },
    });
    expect(h.state.error).toMatchObject({ kind: 'internal', message: expect.stringContaining('not a list of row results') });
  });

  it('ignores frame events of a loop that is already done', () => {
    const playbook = workflow(`
  - step: process
    loop: { in: [1], iterator: item }
    tool: ${body}
    next: [wait]
  - step: wait
    tool: ${body}
`);
    const h = new PlannerHarness(playbook).start();
    const loop = h.loop('process');
    h.commitFrame('process', 0, [1]);
    const late = h.append({
      type: EventType.FrameFailed,
      executionId: h.executionId,
      loopId: loop.loopId,
      payload: { frame_id: 'f0', stage_id: loop.stageId, frame_index: 0, error: boom, attempt: 1 },
    });
    expect(h.batches.get(late.event_id)).toEqual([]);
    expect(h.ofType(EventType.LoopDone)).toHaveLength(1);
  });
});
