import { canonicalChecksum, canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('gives the same bytes whatever the key order', () => {
    const a = { b: 1, a: { d: [1, { z: 1, y: 2 }], c: 'x' } };
    const b = { a: { c: 'x', d: [1, { y: 2, z: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalChecksum(a)).toBe(canonicalChecksum(b));
    expect(canonicalJson(a)).toBe('{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}');
  });

  it('drops undefined members and writes dates as UTC ISO strings', () => {
    expect(canonicalJson({ a: undefined, b: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) })).toBe('{"b":"2026-01-02T03:04:05.000Z"}');
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
  });

  it('writes bigints as decimal strings and rejects non-finite numbers', () => {
    expect(canonicalJson({ id: 12345678901234567890n })).toBe('{"id":"12345678901234567890"}');
    expect(() => canonicalJson({ x: Number.NaN })).toThrow('cannot encode NaN');
  });

  it('changes the checksum when a value changes', () => {
    expect(canonicalChecksum({ a: 1 })).not.toBe(canonicalChecksum({ a: 2 }));
    expect(canonicalChecksum({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('writes a list of scalars as it writes each of them, and still rejects a non-finite number in one', () => {
    const scalars = [1, -0, 0.1, 1e21, 'a"\u2028\n', '', true, false, null, undefined];
    expect(canonicalJson(scalars)).toBe(`[${scalars.map((s) => canonicalJson(s)).join(',')}]`);
    expect(canonicalJson([1, , 3])).toBe('[1,null,3]');
    expect(() => canonicalJson([1, Number.POSITIVE_INFINITY])).toThrow('cannot encode Infinity');
  });
});
