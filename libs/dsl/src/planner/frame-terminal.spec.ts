import { EventType } from '@noetl/event-kernel';
import { isQuietFrameEnd } from './frame-terminal';
import { PlannerHarness, workflow } from './testing/planner-harness';

const playbook = workflow(
  `
  - step: process
    loop: { in: "{{ items }}", iterator: item, spec: { mode: parallel, max_in_flight: 3 } }
    tool: { kind: noop }
  - step: end
`,
  'workload: { items: [1, 2, 3] }',
);

describe('isQuietFrameEnd', () => {
  it('is true for a frame that writes no ctx and leaves frames to go, and nothing is decided for it', () => {
    const h = new PlannerHarness(playbook).start();
    const first = h.commitFrame('process', 0, [{ n: 1 }]);
    expect(isQuietFrameEnd(h.state, first)).toBe(true);
    expect(h.batches.get(first.event_id)).toEqual([]);
  });

  it('is false for a frame that writes ctx, and for the frame that finishes the loop', () => {
    const h = new PlannerHarness(playbook).start();
    const writes = h.commitFrame('process', 0, [{ n: 1 }], { ctx: { seen: 1 } });
    expect(isQuietFrameEnd(h.state, writes)).toBe(false);
    expect(h.batches.get(writes.event_id)!.map((draft) => draft.type)).toEqual([EventType.CtxUpdated]);
    h.commitFrame('process', 1, [{ n: 2 }]);
    // The last frame is planned: it closes the loop.
    const last = h.commitFrame('process', 2, [{ n: 3 }]);
    expect(h.batches.get(last.event_id)!.map((draft) => draft.type)).toContain(EventType.LoopDone);
  });

  it('is false for events that are not frame ends', () => {
    const h = new PlannerHarness(playbook).start();
    expect(isQuietFrameEnd(h.state, h.ofType(EventType.LoopStarted)[0]!)).toBe(false);
  });
});
