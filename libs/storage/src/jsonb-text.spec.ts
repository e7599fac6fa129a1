import { escapeNul, nulPath } from './jsonb-text';

const NUL = String.fromCharCode(0);

describe('nulPath', () => {
  it('names the first string or key holding U+0000, in document order', () => {
    expect(nulPath({ a: 1, b: [true, { c: `x${NUL}` }], d: NUL })).toBe('$.b[1].c');
    expect(nulPath({ [`k${NUL}`]: 1 }, 'ctx')).toBe('ctx.k\\u0000');
    expect(nulPath(`${NUL}`)).toBe('$');
  });

  it('finds none in values without it, the six characters \\u0000 included', () => {
    expect(nulPath({ a: 'plain', b: [1, null, false], c: '\\u0000' })).toBeUndefined();
    expect(nulPath(null)).toBeUndefined();
  });
});

describe('escapeNul', () => {
  it('writes U+0000 in strings and keys as the text \\u0000, and leaves the rest as it was', () => {
    expect(escapeNul({ message: `bad${NUL}byte`, [`k${NUL}`]: [`${NUL}`, 2], literal: '\\u0000' })).toEqual({
      message: 'bad\\u0000byte',
      'k\\u0000': ['\\u0000', 2],
      literal: '\\u0000',
    });
  });

  it('returns a value without U+0000 itself', () => {
    const value = { a: ['b'] };
    expect(escapeNul(value)).toBe(value);
  });
});
