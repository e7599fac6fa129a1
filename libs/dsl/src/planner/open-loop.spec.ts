import { EventType } from '@noetl/event-kernel';
import { DEFAULT_PARALLEL_MAX_IN_FLIGHT } from '../parse/normalise-loop';
import { PlannerHarness, workflow } from './testing/planner-harness';

const body = '{ kind: python, code: "result = 1" }';

describe('openLoop', () => {
  it('renders loop.in and opens an epoch: loop.started, then stage.opened with ceil(size / max_rows) frames', () => {
    const playbook = workflow(
      `
  - step: process
    loop:
      in: "{{ items }}"
      iterator: item
      spec: { mode: parallel, max_in_flight: "{{ width }}", frame: { max_rows: 2, lease_seconds: 60 } }
    tool: ${body}
`,
      'workload: { items: [1, 2, 3, 4, 5], width: "4" }',
    );
    const h = new PlannerHarness(playbook).start();
    expect(h.types()).toEqual([EventType.ExecutionStarted, EventType.StepEnter, EventType.LoopStarted, EventType.StageOpened]);
    const started = h.ofType(EventType.LoopStarted)[0]!;
    const run = h.ofType(EventType.StepEnter)[0]!.payload.run_id;
    expect(started.payload).toEqual({
      loop_id: expect.any(String),
      step: 'process',
      run_id: run,
      epoch: 1,
      size: 5,
      collection: [1, 2, 3, 4, 5],
      mode: 'parallel',
      max_in_flight: 4,
      stage_id: expect.any(String),
    });
    expect(started.loop_id).toBe(started.payload.loop_id);
    const opened = h.ofType(EventType.StageOpened)[0]!;
    expect(opened.payload).toMatchObject({
      stage_id: started.payload.stage_id,
      loop_id: started.payload.loop_id,
      step: 'process',
      kind: 'loop',
      frame_count: 3,
      frame_policy: { max_rows: 2, lease_seconds: 60, process: 'row', max_attempts: 3 },
    });
    expect(h.state.loops[started.payload.loop_id]).toMatchObject({ frameCount: 3, status: 'RUNNING' });
    expect(h.types()).not.toContain(EventType.CommandIssued);
  });

  it('reads the list from a completed step (start.items) and accepts a JSON text list', () => {
    const playbook = workflow(`
  - step: start
    tool: ${body}
    next: [a]
  - step: a
    loop: { in: "{{ start.items }}", iterator: x }
    tool: ${body}
    next: [b]
  - step: b
    loop: { in: "{{ start.items | tojson }}", iterator: x }
    tool: ${body}
`);
    const h = new PlannerHarness(playbook).start();
    h.complete('start', { items: ['p', 'q'] });
    expect(h.ofType(EventType.LoopStarted)[0]?.payload).toMatchObject({
      size: 2,
      collection: ['p', 'q'],
      mode: 'sequential',
      max_in_flight: 1,
    });
    h.commitFrame('a', 0, [1]);
    h.commitFrame('a', 1, [2]);
    expect(h.ofType(EventType.LoopStarted)[1]?.payload).toMatchObject({ step: 'b', collection: ['p', 'q'] });
  });

  it('gives a loop without max_in_flight one frame at a time, a parallel one DEFAULT_PARALLEL_MAX_IN_FLIGHT', () => {
    for (const [mode, expected] of [
      ['sequential', 1],
      ['parallel', DEFAULT_PARALLEL_MAX_IN_FLIGHT],
    ] as const) {
      const h = new PlannerHarness(
        workflow(`
  - step: process
    loop: { in: [1, 2, 3], iterator: item, mode: ${mode} }
    tool: ${body}
`),
      ).start();
      expect({ mode, max_in_flight: h.ofType(EventType.LoopStarted)[0]?.payload.max_in_flight }).toEqual({ mode, max_in_flight: expected });
    }
  });

  it('opens a cursor loop with no size and no frame count', () => {
    const playbook = workflow(`
  - step: drain
    loop:
      cursor: { kind: postgres, auth: pg, claim: "SELECT 1 LIMIT {{ __frame_max_rows }}" }
      iterator: row
      spec: { mode: cursor, max_in_flight: 2, frame: { max_rows: 50 } }
    tool: ${body}
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.LoopStarted)[0]?.payload).toMatchObject({ size: null, mode: 'cursor', max_in_flight: 2 });
    expect(h.ofType(EventType.LoopStarted)[0]?.payload.collection).toBeUndefined();
    expect(h.ofType(EventType.StageOpened)[0]?.payload).toMatchObject({ frame_count: null, frame_policy: { max_rows: 50 } });
  });

  it('opens a fan-out stage with no frames: its items are commands (fanout-shards.spec.ts)', () => {
    const playbook = workflow(`
  - step: shards
    loop: { in: [1, 2, 3], iterator: s, spec: { loop_mode: fanout, mode: parallel } }
    tool: ${body}
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.StageOpened)[0]?.payload).toMatchObject({ kind: 'fanout', frame_count: 0 });
    expect(h.ofType(EventType.CommandIssued)).toHaveLength(3);
  });

  it('closes an empty loop at once and routes on it', () => {
    const playbook = workflow(
      `
  - step: process
    loop: { in: "{{ items }}", iterator: item }
    tool: ${body}
    next:
      - step: end
        when: "{{ event.name == 'loop.done' and fanin.total == 0 and process.stats.total == 0 }}"
  - step: end
`,
      'workload: { items: [] }',
    );
    const h = new PlannerHarness(playbook).start();
    expect(h.types()).toEqual([
      EventType.ExecutionStarted,
      EventType.StepEnter,
      EventType.LoopStarted,
      EventType.StageOpened,
      EventType.LoopDone,
      EventType.StageClosed,
      EventType.StepExit,
      EventType.StepEnter,
      EventType.StepExit,
      EventType.ExecutionCompleted,
    ]);
    expect(h.ofType(EventType.StageOpened)[0]?.payload.frame_count).toBe(0);
    expect(h.ofType(EventType.StepExit)[0]?.payload.result).toEqual({
      results: [],
      stats: { total: 0, succeeded: 0, success: 0, failed: 0 },
    });
  });

  it.each([
    ['"{{ items }}"', 'workload: { items: { a: 1 } }', 'loop.in of step process must yield a list, got a mapping from "{{ items }}"'],
    ['"{{ items }}"', 'workload: { items: "nope" }', 'got a string "nope"'],
    ['"{{ missing }}"', '', 'got null'],
  ])('fails the step when loop.in %s gives no list (%s)', (source, workload, message) => {
    const playbook = workflow(
      `
  - step: process
    loop: { in: ${source}, iterator: item }
    tool: ${body}
`,
      workload,
    );
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.StepExit)[0]?.payload).toMatchObject({ status: 'FAILED', error: { kind: 'template' } });
    expect(h.state.error?.message).toContain(message);
    expect(h.types()).not.toContain(EventType.LoopStarted);
  });

  it('fails the step when max_in_flight does not render to a positive integer', () => {
    const playbook = workflow(
      `
  - step: process
    loop: { in: [1], iterator: item, spec: { mode: parallel, max_in_flight: "{{ width }}" } }
    tool: ${body}
`,
      'workload: { width: 0 }',
    );
    const h = new PlannerHarness(playbook).start();
    expect(h.state.error).toMatchObject({ kind: 'template', message: expect.stringContaining('max_in_flight of step process') });
  });
});
