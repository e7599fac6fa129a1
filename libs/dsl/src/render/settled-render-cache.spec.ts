import { ExpressionEngine, InlineSlice, RenderSliceExceeded, TemplateError } from '../expressions';
import { answerRenderRequest, type RenderRequest } from './render-request';
import { SettledRenderCache } from './settled-render-cache';

const LOOP = '{% for i in range(3000) %}{% endfor %}';

describe('SettledRenderCache', () => {
  const engine = new ExpressionEngine({ now: () => new Date(0), uuid: () => 'u' });
  const offloaded: RenderRequest[] = [];
  const cache = new SettledRenderCache(async (request) => {
    offloaded.push(request);
    return answerRenderRequest(engine, request);
  });
  const slice = new InlineSlice(engine, { work: 1000, ms: Infinity, clock: () => 0 }, cache.lookup);

  function exceeded(template: string, scope: Record<string, unknown>): RenderSliceExceeded {
    try {
      slice.renderString(template, scope);
    } catch (error) {
      if (error instanceof RenderSliceExceeded) return error;
      throw error;
    }
    throw new Error('the render fit its slice');
  }

  it('settles a render once for the passes that meet it together, and answers the slice with it after', async () => {
    const first = exceeded(`${LOOP}{{ n * 2 }}`, { n: 21 });
    await Promise.all([cache.settle(first), cache.settle(exceeded(`${LOOP}{{ n * 2 }}`, { n: 21 }))]);
    expect(offloaded).toHaveLength(1);
    expect(slice.renderString(`${LOOP}{{ n * 2 }}`, { n: 21 })).toBe('42');
    // Another scope is another render.
    expect(() => slice.renderString(`${LOOP}{{ n * 2 }}`, { n: 1 })).toThrow(RenderSliceExceeded);
  });

  it('answers the slice with the template error the full budget gives', async () => {
    await cache.settle(exceeded(`${LOOP}{{ nothing.here }}`, {}));
    expect(() => slice.renderString(`${LOOP}{{ nothing.here }}`, {})).toThrow(TemplateError);
    expect(() => slice.renderString(`${LOOP}{{ nothing.here }}`, {})).toThrow("'nothing' is undefined");
  });
});
