import { EventType, foldEvents } from '@noetl/event-kernel';
import { plan } from './plan';
import { PlannerHarness, workflow } from './testing/planner-harness';

const linear = workflow(
  `
  - step: start
    next: [fetch]
  - step: fetch
    tool: { kind: http, url: "{{ api_url }}/items" }
    next: [route]
  - step: route
    next: [end]
  - step: end
    tool: { kind: python, code: "result = {'done': True}" }
`,
  'workload: { api_url: "http://api" }',
);

describe('plan', () => {
  it("routes a linear playbook to completion, the result being the last step's", () => {
    const h = new PlannerHarness(linear).start();
    expect(h.trace()).toEqual(['enter start', 'exit start', 'enter fetch']);
    h.complete('fetch', { status_code: 200, data: [1] });
    expect(h.trace().slice(3)).toEqual(['exit fetch', 'enter route', 'exit route', 'enter end']);
    h.complete('end', { done: true });
    expect(h.state.status).toBe('COMPLETED');
    expect(h.ofType(EventType.ExecutionCompleted)[0]?.payload).toEqual({ result: { done: true } });
    expect(h.types().at(-1)).toBe(EventType.ExecutionCompleted);
  });

  it('starts a rerun at its from_step, with the copied results and ctx in scope', () => {
    const routed = workflow(`
  - step: start
    next: [fetch]
  - step: fetch
    tool: { kind: http, url: "http://api/items" }
    next: [route]
  - step: route
    next:
      - { step: end, when: "{{ fetch.data[0] == 1 and seen }}" }
      - { step: other }
  - step: end
    tool: { kind: noop }
  - step: other
    tool: { kind: noop }
`);
    const h = new PlannerHarness(routed, {
      rerun: {
        rerun_of: { execution_id: '6000', from_step: 'route', as_of_event_id: '99', as_of_position: 9 },
        seed: { results: { fetch: { value: { status_code: 200, data: [1] } } }, ctx: { seen: true } },
      },
    }).start();
    expect(h.trace()).toEqual(['enter route', 'exit route', 'enter end']);
    expect(h.state.results.fetch).toEqual({ value: { status_code: 200, data: [1] } });
    expect(h.state.ctx).toEqual({ seen: true });
    expect(h.state.rerunOf).toEqual({ executionId: '6000', fromStep: 'route', asOfEventId: '99', asOfPosition: 9 });
    h.complete('end', { done: true });
    expect(h.state.status).toBe('COMPLETED');
  });

  it('gives every decision the idempotency key plan:<event_id>:<n> and the trigger as causation', () => {
    const h = new PlannerHarness(linear).start();
    const trigger = h.events[0]!;
    const batch = h.batches.get(trigger.event_id)!;
    expect(batch.length).toBeGreaterThan(2);
    batch.forEach((draft, n) => {
      expect(draft.idempotencyKey).toBe(`plan:${trigger.event_id}:${n}`);
      expect(draft.causationId).toBe(trigger.event_id);
      expect(draft.executionId).toBe(h.executionId);
    });
  });

  it('is pure: the same state and trigger give the same decisions, and the state it is given is not changed', () => {
    const h = new PlannerHarness(linear).start();
    const event = h.complete('fetch', { data: [] });
    const before = h.events.indexOf(event);
    const folded = foldEvents(h.events.slice(0, before + 1))!;
    const snapshot = structuredClone(folded);
    let n = 0;
    const env = { ...h.env, newId: () => `id${n++}` };
    const first = plan(linear, folded, event, env);
    n = 0;
    const second = plan(linear, folded, event, env);
    expect(second).toEqual(first);
    expect(folded).toEqual(snapshot);
  });

  it('plans nothing for events that need no decision', () => {
    const h = new PlannerHarness(linear).start();
    const command = h.command('fetch');
    const claimed = h.append({
      type: EventType.CommandClaimed,
      executionId: h.executionId,
      commandId: command.commandId,
      payload: { worker_id: 'w', lease_until: '2025-01-01T00:01:00Z', attempt: 1 },
    });
    expect(h.batches.get(claimed.event_id)).toEqual([]);
    const heartbeat = h.append({
      type: EventType.CommandHeartbeat,
      executionId: h.executionId,
      commandId: command.commandId,
      payload: { worker_id: 'w', lease_until: '2025-01-01T00:02:00Z' },
    });
    expect(h.batches.get(heartbeat.event_id)).toEqual([]);
    const ownDecisions = h.events.filter((e) => e.causation_id !== null);
    expect(ownDecisions.length).toBeGreaterThan(0);
    for (const event of ownDecisions) expect(h.batches.get(event.event_id)).toEqual([]);
  });

  it('plans nothing after a terminal event', () => {
    const h = new PlannerHarness(linear).start();
    const command = h.command('fetch');
    h.append({ type: EventType.ExecutionFailed, executionId: h.executionId, payload: { error: { kind: 'internal', message: 'x' } } });
    const late = h.append({
      type: EventType.CommandCompleted,
      executionId: h.executionId,
      commandId: command.commandId,
      payload: { result: {} },
    });
    expect(h.batches.get(late.event_id)).toEqual([]);
    expect(h.types().at(-1)).toBe(EventType.CommandCompleted);
  });
});

describe('plan errors', () => {
  it('propagates an error that is not a step failure, such as a payload the scheduler did not preload', () => {
    const h = new PlannerHarness(linear).start();
    const command = h.command('fetch');
    const ref = { sha256: 'f'.repeat(64), media_type: 'application/json', bytes: 10 };
    expect(() =>
      h.append({
        type: EventType.CommandCompleted,
        executionId: h.executionId,
        commandId: command.commandId,
        payload: { result_ref: ref },
      }),
    ).toThrow('not preloaded');
  });
});
