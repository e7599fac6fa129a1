import { EventType } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

describe('enterStep', () => {
  it('issues a command whose spec carries the unrendered tool and input, the success-side policies and the scope ref', () => {
    const playbook = workflow(`
  - step: fetch
    input: { page: "{{ ctx.page }}" }
    tool: { kind: http, url: "{{ api_url }}/items", params: { page: "{{ input.page }}" } }
    retry:
      - when: "{{ error.retryable }}"
        then: { max_attempts: 3 }
      - when: "{{ response.more }}"
        then: { max_attempts: 10, next_call: { params: { page: "{{ response.page + 1 }}" } } }
`);
    const h = new PlannerHarness(playbook).start({ page: 1 });
    const [enter] = h.ofType(EventType.StepEnter);
    expect(enter?.payload).toEqual({ step: 'fetch', run_id: expect.any(String), activation: 1, arrivals: [] });
    const [issued] = h.ofType(EventType.CommandIssued);
    expect(issued?.command_id).toBe(issued?.payload.command_id);
    expect(issued?.payload).toMatchObject({ step: 'fetch', run_id: enter?.payload.run_id, kind: 'http', attempt: 1, max_attempts: 3 });
    const spec = issued!.payload.spec;
    expect(spec['input']).toEqual({ page: '{{ ctx.page }}' });
    expect(spec['tool']).toMatchObject({ pipeline: false, tasks: [{ kind: 'http', config: { url: '{{ api_url }}/items' } }] });
    expect(spec['scope_ref']).toEqual({ execution_id: h.executionId });
    expect(spec['step']).toBe('fetch');
    expect(spec['retry']).toEqual([expect.objectContaining({ on: 'success', when: '{{ response.more }}' })]);
    expect(() => structuredClone(spec)).not.toThrow();
  });

  it('names a list-valued tool a pipeline', () => {
    const playbook = workflow(`
  - step: work
    tool:
      - { name: a, kind: python, code: "result = 1" }
      - { name: b, kind: python, code: "result = 2" }
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.CommandIssued)[0]?.payload.kind).toBe('pipeline');
  });

  it('completes a routing step at once with {} and event.name step.enter', () => {
    const playbook = workflow(`
  - step: start
    next:
      - step: end
        when: "{{ event.name == 'step.enter' and start == {} }}"
  - step: end
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.trace()).toEqual(['enter start', 'exit start', 'enter end', 'exit end']);
    expect(h.ofType(EventType.StepExit)[0]?.payload).toMatchObject({ status: 'COMPLETED', result: {}, next: ['end'] });
    expect(h.state.status).toBe('COMPLETED');
    expect(h.state.result).toEqual({});
  });

  it('counts activations of a step re-entered by a loop-back arc', () => {
    const playbook = workflow(`
  - step: page
    set: { ctx.n: "{{ (ctx.n | default(0)) + 1 }}" }
    next:
      - step: page
        when: "{{ ctx.n < 3 }}"
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.ofType(EventType.StepEnter).map((e) => e.payload.activation)).toEqual([1, 2, 3]);
    expect(h.ofType(EventType.StepEnter).map((e) => e.payload.arrivals?.length)).toEqual([0, 1, 1]);
    expect(h.state.ctx['n']).toBe(3);
    expect(h.state.status).toBe('COMPLETED');
  });

  it('fails the execution when routing runs away in a cycle of routing steps', () => {
    const playbook = workflow(`
  - step: a
    next: [b]
  - step: b
    next: [a]
`);
    const h = new PlannerHarness(playbook).start();
    expect(h.state.status).toBe('FAILED');
    expect(h.state.error).toMatchObject({ kind: 'internal', message: expect.stringContaining('did not settle') });
  });

  it('fails the execution when the entry step does not exist', () => {
    const playbook = {
      ...workflow(`
  - step: a
`),
      executor: { entryStep: 'missing' },
    };
    const h = new PlannerHarness(playbook).start();
    expect(h.types()).toEqual([EventType.ExecutionStarted, EventType.ExecutionFailed]);
    expect(h.state.error).toEqual({ step: 'missing', kind: 'internal', message: 'unknown step "missing"' });
  });
});
