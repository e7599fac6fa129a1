import { globalInputNames, wrapJsCode } from './wrap-js-code';

// The wrapper is plain JavaScript: checking it with Node's own engine keeps this spec pure.
const evaluate = (code: string, globals: Record<string, unknown> = {}): unknown => {
  const names = Object.keys(globals);
  return new Function(...names, `return ${wrapJsCode(code)}`)(...names.map((n) => globals[n]));
};

describe('wrapJsCode', () => {
  it('returns a local or assigned result', () => {
    expect(evaluate('const result = 1 + 1;')).toBe(2);
    expect(evaluate('let result; result = [a, b]', { a: 1, b: 2 })).toEqual([1, 2]);
  });

  it('returns the value of a top-level return', () => {
    expect(evaluate('if (x > 1) return "big";\nreturn "small"', { x: 5 })).toBe('big');
  });

  it('survives a trailing line comment and a missing semicolon', () => {
    expect(evaluate('const result = 3 // done')).toBe(3);
  });

  it('gives undefined when nothing is produced', () => {
    expect(evaluate('const x = 1')).toBeUndefined();
  });
});

describe('globalInputNames', () => {
  it('binds every input except names that would break the sandbox', () => {
    expect(globalInputNames({ a: 1, globalThis: 2, ['__proto__']: 3 })).toEqual(['a']);
  });
});
