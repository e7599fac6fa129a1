import { ExpressionEngine } from '../expressions';
import { stepResultView } from './step-result-view';

const engine = new ExpressionEngine({ now: () => new Date('2025-01-01T00:00:00Z'), uuid: () => 'u' });
const render = (template: string, scope: Record<string, unknown>): unknown => engine.renderString(template, scope);

describe('stepResultView', () => {
  it('reads .data as the result itself when the result has no data key of its own', () => {
    const scope = { process_users: stepResultView({ users: [1, 2], count: 2 }) };
    expect(render('{{ process_users.data.count }}', scope)).toBe(2);
    expect(render('{{ process_users.data }}', scope)).toEqual({ users: [1, 2], count: 2 });
    expect(render('{{ process_users.count }}', scope)).toBe(2);
  });

  it('reads .data as the own data key when there is one', () => {
    const scope = { start: stepResultView({ data: { executed: true }, status: 'ok' }) };
    expect(render('{{ start.data.executed }}', scope)).toBe(true);
  });

  it('reads .result as an alias of the result, unless the result has its own result key', () => {
    expect(render('{{ fetch.result.x }}', { fetch: stepResultView({ x: 5 }) })).toBe(5);
    expect(render('{{ fetch.result }}', { fetch: stepResultView({ result: 'own' }) })).toBe('own');
  });

  it('reads .data of a loop result as its results list', () => {
    const loop = stepResultView({ results: [{ a: 1 }, { a: 2 }], stats: { total: 2 } }, { loop: true });
    expect(render('{{ process_users.data | length }}', { process_users: loop })).toBe(2);
    expect(render('{{ process_users.data[1].a }}', { process_users: loop })).toBe(2);
    expect(render('{{ process_users.stats.total }}', { process_users: loop })).toBe(2);
  });

  it('serialises as the value itself, with no cycle', () => {
    const value = { a: 1, nested: { b: [1, 2] } };
    const view = stepResultView(value);
    expect(JSON.stringify(view)).toBe(JSON.stringify(value));
    expect(Object.keys(view as object)).toEqual(['a', 'nested']);
    expect(render('{{ x | tojson }}', { x: view })).toBe(JSON.stringify(value));
    expect(render('{{ x }}', { x: view })).toEqual(value);
  });

  it('is truthy when the result is a non-empty object and supports `in`', () => {
    const view = stepResultView({ a: 1 });
    expect(render('{{ "yes" if x else "no" }}', { x: view })).toBe('yes');
    expect('data' in (view as object)).toBe(true);
    expect('a' in (view as object)).toBe(true);
  });

  it('leaves lists and scalars as they are', () => {
    const list = [1, 2];
    expect(stepResultView(list)).toBe(list);
    expect(stepResultView(3)).toBe(3);
    expect(stepResultView(null)).toBeNull();
  });

  it('is read-only', () => {
    const view = stepResultView({ a: 1 }) as Record<string, unknown>;
    expect(() => {
      view['a'] = 2;
    }).toThrow(TypeError);
    expect(() => delete view['a']).toThrow(TypeError);
    expect(() => Object.defineProperty(view, 'b', { value: 1 })).toThrow(TypeError);
    expect(() => Object.setPrototypeOf(view, null)).toThrow(TypeError);
  });

  it('reports no alias on a frozen result (a proxy may not invent properties there) but still reads it', () => {
    const view = stepResultView(Object.freeze({ a: 1 })) as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(view, 'data')).toBeUndefined();
    expect(view['data']).toEqual({ a: 1 });
  });
});
