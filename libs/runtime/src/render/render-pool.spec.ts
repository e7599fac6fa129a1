import { ExpressionEngine, OffloadingRenderer, stepResultView, TemplateError } from '@noetl/dsl';
import { RenderPool } from './render-pool';

const LOOP = '{% for i in range(3000) %}{% endfor %}';

describe('renders moved off the event loop', () => {
  const engine = new ExpressionEngine({ now: () => new Date(0), uuid: () => 'uuid-1' }, { limits: { maxWork: 50_000 } });
  const pool = new RenderPool(engine, 2);
  const offloaded: string[] = [];
  // A slice of 1 000 work units: every template below that loops goes past it and is rendered by a thread.
  const renderer = new OffloadingRenderer(engine, { work: 1_000, ms: Infinity, clock: () => 0 }, (request) => {
    offloaded.push(JSON.stringify(request.value));
    return pool.render(request);
  });
  const scope = () => ({
    fetch: stepResultView({ rows: [1, 2, 3] }),
    pages: stepResultView({ results: [{ n: 1 }, { n: 2 }] }, { loop: true }),
    who: 'ada',
  });

  afterAll(() => pool.close());
  beforeEach(() => offloaded.splice(0));

  async function failureOf(render: () => unknown): Promise<TemplateError> {
    try {
      await render();
    } catch (error) {
      if (error instanceof TemplateError) return error;
      throw error;
    }
    throw new Error('the render did not fail');
  }

  it('renders the same value in a thread as inline, step result views and all', async () => {
    const value = {
      sum: '{{ (range(3000) | length) + (fetch.data.rows | sum) }}',
      text: `${LOOP}{{ who }} read {{ pages.data | length }} pages`,
      plain: '{{ who }}',
    };
    expect(await renderer.renderValue(value, scope())).toEqual(engine.renderValue(value, scope()));
    expect(await renderer.renderValue(value, scope())).toEqual({ sum: 3006, text: 'ada read 2 pages', plain: 'ada' });
    expect(offloaded).toHaveLength(2);
    expect(await renderer.evaluateCondition(`${LOOP}{{ pages.data[1].n == 2 }}`, scope())).toBe(true);
  });

  it('renders small templates inline, never sending them to a thread', async () => {
    expect(await renderer.renderString('{{ fetch.data.rows[0] + 1 }}', scope())).toBe(2);
    expect(offloaded).toEqual([]);
  });

  it('raises the same TemplateError from a thread as inline', async () => {
    const template = `${LOOP}{{ nothing.here }}`;
    const inline = await failureOf(() => engine.renderString(template, scope()));
    const thread = await failureOf(() => renderer.renderString(template, scope()));
    expect(offloaded).toHaveLength(1);
    expect(thread).toMatchObject({
      message: inline.message,
      expression: template,
      code: 'template_undefined',
      line: inline.line,
      column: inline.column,
    });
  });

  it('fails a render past the full budget in the thread as the engine does inline', async () => {
    const template = '{% for i in range(30000) %}{% for j in range(3) %}{% endfor %}{% endfor %}done';
    const inline = await failureOf(() => engine.renderString(template, {}));
    const thread = await failureOf(() => renderer.renderString(template, {}));
    expect(inline.code).toBe('template_budget');
    expect(thread).toMatchObject({ message: inline.message, code: 'template_budget' });
  });
});
