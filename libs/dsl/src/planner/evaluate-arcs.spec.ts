import { ExpressionEngine, TemplateError } from '../expressions';
import type { Next } from '../model';
import { evaluateArcs } from './evaluate-arcs';

const engine = new ExpressionEngine({ now: () => new Date('2025-01-01T00:00:00Z'), uuid: () => 'u' });
const arcs: Next['arcs'] = [
  { step: 'hot', when: '{{ t >= 25 }}', set: [] },
  { step: 'warm', when: '{{ t >= 15 }}', set: [] },
  { step: 'never', when: false, set: [] },
  { step: 'always', set: [] },
];

describe('evaluateArcs', () => {
  it.each([
    ['exclusive', 30, ['hot']],
    ['exclusive', 20, ['warm']],
    ['exclusive', 0, ['always']],
    ['inclusive', 30, ['hot', 'warm', 'always']],
    ['inclusive', 20, ['warm', 'always']],
    ['inclusive', 0, ['always']],
  ] as const)('%s with t=%d fires %j', (mode, t, expected) => {
    const fired = evaluateArcs(engine, { mode, onNoMatch: 'complete', arcs }, { t });
    expect(fired.map((arc) => arc.step)).toEqual(expected);
  });

  it('fires nothing when nothing holds', () => {
    expect(evaluateArcs(engine, { mode: 'inclusive', onNoMatch: 'quiet', arcs: arcs.slice(0, 3) }, { t: 0 })).toEqual([]);
  });

  it('reads rendered text the Rust way: "false", "0", "none" are false', () => {
    const next: Next = { mode: 'inclusive', onNoMatch: 'complete', arcs: [{ step: 'a', when: '{{ flag }}', set: [] }] };
    expect(evaluateArcs(engine, next, { flag: 'False' })).toEqual([]);
    expect(evaluateArcs(engine, next, { flag: 'yes' })).toHaveLength(1);
  });

  it('lets a template error propagate', () => {
    const next: Next = { mode: 'exclusive', onNoMatch: 'complete', arcs: [{ step: 'a', when: '{{ x | nope }}', set: [] }] };
    expect(() => evaluateArcs(engine, next, {})).toThrow(TemplateError);
  });
});
