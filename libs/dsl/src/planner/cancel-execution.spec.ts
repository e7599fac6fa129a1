import { EventType } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

describe('onExecutionCancelled', () => {
  it('cancels every command that is not terminal, and nothing follows', () => {
    const playbook = workflow(`
  - step: start
    next: { spec: { mode: inclusive }, arcs: [{ step: a }, { step: b }, { step: c }] }
  - step: a
    tool: { kind: python, code: "result = 1" }
  - step: b
    tool: { kind: python, code: "result = 1" }
  - step: c
    tool: { kind: python, code: "result = 1" }
`);
    const h = new PlannerHarness(playbook).start();
    const b = h.command('b');
    const c = h.command('c');
    h.complete('a');
    h.append({
      type: EventType.CommandClaimed,
      executionId: h.executionId,
      commandId: b.commandId,
      payload: { worker_id: 'w1', lease_until: '2025-01-01T00:01:00Z', attempt: 1 },
    });
    const cancelled = h.cancel('user asked');
    const batch = h.batches.get(cancelled.event_id)!;
    expect(batch.map((d) => [d.type, d.commandId])).toEqual([
      [EventType.CommandCancelled, b.commandId],
      [EventType.CommandCancelled, c.commandId],
    ]);
    expect(batch[0]?.payload).toEqual({ reason: 'execution cancelled: user asked' });
    expect(h.openCommands()).toEqual([]);
    const late = h.append({
      type: EventType.CommandCompleted,
      executionId: h.executionId,
      commandId: b.commandId,
      payload: { result: {} },
    });
    expect(h.batches.get(late.event_id)).toEqual([]);
  });

  it('says only that the execution was cancelled when no reason is given', () => {
    const playbook = workflow(`
  - step: a
    tool: { kind: python, code: "result = 1" }
`);
    const h = new PlannerHarness(playbook).start();
    const cancelled = h.cancel();
    expect(h.batches.get(cancelled.event_id)![0]?.payload).toEqual({ reason: 'execution cancelled' });
  });
});
