import { isJsonObject, toPlainJson } from './plain-json';
import { stepResultView } from './step-result-view';

describe('toPlainJson', () => {
  it('copies views into plain, cloneable JSON', () => {
    const plain = toPlainJson({ step: stepResultView({ a: [1, { b: 2 }] }) });
    expect(plain).toEqual({ step: { a: [1, { b: 2 }] } });
    expect(() => structuredClone(plain)).not.toThrow();
  });

  it('drops undefined entries, nulls undefined items and non-finite numbers, and stringifies dates and bigints', () => {
    expect(toPlainJson({ a: undefined, b: [undefined, Number.NaN, Infinity], c: new Date('2025-01-01T00:00:00Z'), d: 10n })).toEqual({
      b: [null, null, null],
      c: '2025-01-01T00:00:00.000Z',
      d: '10',
    });
    expect(toPlainJson(undefined)).toBeNull();
    expect(toPlainJson(() => 1)).toBeNull();
    expect(toPlainJson({ f: () => 1, s: Symbol('x') })).toEqual({});
    expect(toPlainJson(new Date(Number.NaN))).toBeNull();
  });

  it('keeps a __proto__ key as a key', () => {
    const source = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const plain = toPlainJson(source) as Record<string, unknown>;
    expect(Object.keys(plain)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('tells JSON objects from lists and scalars', () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject([])).toBe(false);
    expect(isJsonObject(null)).toBe(false);
    expect(isJsonObject(undefined)).toBe(false);
  });
});
