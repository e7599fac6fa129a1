import { ExpressionEngine } from '../expressions';
import { withResultViews } from './result-views';

const engine = new ExpressionEngine({ now: () => new Date(0), uuid: () => 'u' });

describe('withResultViews', () => {
  const plain = { start: { x: 1 }, scan: { results: [1, 2], stats: { total: 2 } }, greeting: 'hi' };

  it('gives step results their .data and .result views back, and leaves other names alone', () => {
    const scope = withResultViews(plain, { start: 'step', scan: 'loop' });
    expect(engine.renderString('{{ start.data.x }}/{{ start.result.x }}', scope)).toBe('1/1');
    expect(engine.renderString('{{ scan.data | length }}', scope)).toBe(2);
    expect(scope['greeting']).toBe('hi');
  });

  it('does not change the scope it was given', () => {
    withResultViews(plain, { start: 'step' });
    expect(engine.renderString('{{ start.data is defined }}', plain)).toBe(false);
  });
});
