import { applyEvent, EventType, type EventDraft, type EventTypeName } from '@noetl/event-kernel';
import { ExpressionEngine, type TemplateRenderer } from '../expressions';
import { plan } from '../planner';
import { PlannerHarness, workflow } from '../planner/testing/planner-harness';
import { answerRenderRequest, type RenderRequest } from './render-request';
import { withSettledRenders } from './with-settled-renders';

/** 3 000 loop iterations: past an inline slice of 1 000 work units, far inside the full budget. */
const LOOP = '{% for i in range(3000) %}{% endfor %}';

describe('withSettledRenders: the planner with renders past its inline slice', () => {
  const engine = new ExpressionEngine({ now: () => new Date(0), uuid: () => 'uuid-1' });
  const offloaded: RenderRequest[] = [];
  const options = {
    expressions: engine,
    slice: { work: 1000, ms: Infinity, clock: () => 0 },
    offload: async (request: RenderRequest) => {
      offloaded.push(request);
      return answerRenderRequest(engine, request);
    },
  };
  beforeEach(() => offloaded.splice(0));

  /** The decisions on the execution's start, with ids counted from 1 on every run. */
  function starting(when: string, set: string): { plan: (renderer: TemplateRenderer) => EventDraft<EventTypeName>[] } {
    const playbook = workflow(
      `
  - step: start
    next:
      - step: end
        when: "${when}"
        set: { ctx.total: "${set}", ctx.small: "{{ workload.n }}" }
  - step: end
`,
      'workload: { n: 7 }',
    );
    const h = new PlannerHarness(playbook).start();
    const started = h.events[0]!;
    const state = applyEvent(undefined, started);
    return {
      plan: (renderer) => {
        let id = 1;
        return plan(playbook, state, started, { ...h.env, renderer, newId: () => String(id++) });
      },
    };
  }

  it('plans what the full budget plans inline, each heavy render done once off the loop', async () => {
    const start = starting(`${LOOP}{{ workload.n == 7 }}`, `${LOOP}{{ workload.n * 2 }}`);
    const settled = await withSettledRenders(options, start.plan);
    expect(settled).toEqual(start.plan(engine));
    expect(offloaded.map((request) => request.value)).toEqual([`${LOOP}{{ workload.n == 7 }}`, `${LOOP}{{ workload.n * 2 }}`]);
    expect(settled.find((draft) => draft.type === EventType.CtxUpdated)?.payload).toEqual({
      set: { total: '14', small: 7 },
      step: 'start',
    });
  });

  it('fails the step with the template error the full budget gives inline', async () => {
    const start = starting('{{ true }}', `${LOOP}{{ nothing.here }}`);
    const settled = await withSettledRenders(options, start.plan);
    expect(settled).toEqual(start.plan(engine));
    expect(offloaded).toHaveLength(1);
    const failed = settled.find((draft) => draft.type === EventType.ExecutionFailed);
    expect(failed?.payload).toMatchObject({ error: { kind: 'template', message: expect.stringContaining("'nothing' is undefined") } });
  });

  it('renders inline with the full budget once a run has settled eight renders (a scope that differs run after run)', async () => {
    let run = 0;
    const value = await withSettledRenders(options, (renderer) => renderer.renderString(`${LOOP}{{ n }}`, { n: ++run }));
    expect(offloaded).toHaveLength(8);
    expect(value).toBe('10');
  });
});
