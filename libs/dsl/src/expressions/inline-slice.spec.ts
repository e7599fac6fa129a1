import { ExpressionEngine } from './expression-engine';
import { InlineSlice } from './inline-slice';
import { RenderSliceExceeded } from './render-slice';
import { TemplateError } from './template-error';

const LOOP = '{% for i in range(5000) %}{% endfor %}';

describe('InlineSlice', () => {
  const engine = new ExpressionEngine({ now: () => new Date(0), uuid: () => 'u' }, { limits: { maxWork: 20_000 } });

  it('renders what fits its slice as the engine does', () => {
    const slice = new InlineSlice(engine, { work: 1000, ms: 10, clock: () => 0 });
    expect(slice.renderValue({ a: '{{ n + 1 }}', b: ['x{{ n }}'] }, { n: 1 })).toEqual({ a: 2, b: ['x1'] });
    expect(slice.evaluateCondition('{{ n > 0 }}', { n: 1 })).toBe(true);
  });

  it('gives up past its work units, with the template and scope to render elsewhere', () => {
    const slice = new InlineSlice(engine, { work: 1000, ms: 10, clock: () => 0 });
    const scope = { n: 1 };
    expect(() => slice.renderString(`${LOOP}{{ n }}`, scope)).toThrow(RenderSliceExceeded);
    expect(() => slice.renderString(`${LOOP}{{ n }}`, scope)).toThrow(expect.objectContaining({ template: `${LOOP}{{ n }}`, scope }));
  });

  it('gives up past its time, read on its clock every so many operations (never for a small render)', () => {
    let readings = 0;
    const slice = new InlineSlice(engine, { work: 1_000_000, ms: 2, clock: () => readings++ });
    expect(() => slice.renderString(`${LOOP}{{ n }}`, { n: 1 })).toThrow(RenderSliceExceeded);
    expect(readings).toBe(4);
    expect(new InlineSlice(engine, { work: 1_000_000, ms: 2, clock: () => readings++ }).renderString('{{ n }}', { n: 1 })).toBe(1);
    expect(readings).toBe(4);
  });

  it("fails as the engine does past the engine's own budget, when the slice is not smaller", () => {
    const slice = new InlineSlice(engine, { work: 1_000_000, ms: 1000, clock: () => 0 });
    const template = '{% for i in range(30000) %}{% endfor %}';
    expect(() => slice.renderString(template, {})).toThrow(TemplateError);
    expect(() => slice.renderString(template, {})).toThrow(/maxWork/);
  });

  it('answers a render past its slice with its settled outcome', () => {
    const settled = new InlineSlice(engine, { work: 1000, ms: 10, clock: () => 0 }, (template) =>
      template.startsWith(LOOP) ? { value: 'settled' } : undefined,
    );
    expect(settled.renderString(`${LOOP}{{ n }}`, { n: 1 })).toBe('settled');
  });
});
