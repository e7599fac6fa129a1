import { baseRuntime } from './nunjucks-internals';
import {
  add,
  compare,
  contains,
  indexSequence,
  isPlainObject,
  modulo,
  multiply,
  pyEquals,
  pyRepr,
  pyStr,
  sliceValue,
  truthy,
} from './python-values';

const safe = (s: string): unknown => new baseRuntime.SafeString(s);

describe('python values', () => {
  it.each([
    [undefined, false],
    [null, false],
    [false, false],
    [0, false],
    [NaN, false],
    ['', false],
    [[], false],
    [{}, false],
    [BigInt(0), false],
    [BigInt(2), true],
    [safe(''), false],
    [safe('x'), true],
    [new Date(0), true],
    [1, true],
    ['0', true],
    [Object.create(null), false],
  ])('truthy(%p) is %p', (value, expected) => {
    expect(truthy(value)).toBe(expected);
  });

  it.each([
    [undefined, ''],
    [null, 'None'],
    [true, 'True'],
    [1.5, '1.5'],
    [NaN, 'nan'],
    [Infinity, 'inf'],
    [-Infinity, '-inf'],
    [BigInt(7), '7'],
    [() => 1, ''],
    [Symbol('s'), ''],
    [new Date(0), '1970-01-01T00:00:00.000Z'],
    [
      ['a', "b'c", 'd"e\'f', 'g\\h', 'i\nj\r\t\x01', null, [undefined]],
      "['a', \"b'c\", 'd\"e\\'f', 'g\\\\h', 'i\\nj\\r\\t\\x01', None, [None]]",
    ],
    [{ k: safe('v') }, "{'k': 'v'}"],
    [new Map(), '[object Map]'],
  ])('pyStr(%p) is %p', (value, expected) => {
    expect(pyStr(value)).toBe(expected);
  });

  it('reprs a SafeString like a string', () => {
    expect(pyRepr(safe('x'))).toBe("'x'");
  });

  it.each([
    [null, undefined, false],
    [undefined, undefined, true],
    [null, 0, false],
    [true, 1, true],
    ['1', 1, false],
    [safe('a'), 'a', true],
    [safe('1'), 1, false],
    [[1, [2]], [1, [2]], true],
    [[1], [1, 2], false],
    [{ a: 1 }, { a: 1 }, true],
    [{ a: 1 }, { a: 1, b: 2 }, false],
    [new Date(0), new Date(0), false],
  ])('pyEquals(%p, %p) is %p', (a, b, expected) => {
    expect(pyEquals(a, b)).toBe(expected);
  });

  it('compares with chains and mixed types', () => {
    expect(compare(1, '<', 2, '<=', 2, '>=', 1, '>', 0)).toBe(true);
    expect(compare('b', '>', 'a')).toBe(true);
    expect(compare(true, '>', 0)).toBe(true);
    expect(compare([1, 2], '<', [1, 2, 0])).toBe(true);
    expect(compare('10', '>', 5)).toBe(true);
    expect(() => compare(1, '<>', 2)).toThrow(/unknown comparison operator/);
  });

  it('tests membership', () => {
    expect(contains('a', safe('abc'))).toBe(true);
    expect(contains(1, 'a1')).toBe(true);
    expect(contains({}, { a: 1 })).toBe(false);
    expect(contains(1, 5)).toBe(false);
    expect(contains(1, { 1: 'x' })).toBe(true);
  });

  it('does arithmetic the Python way where it differs', () => {
    expect(add(safe('a'), 'b')).toBe('ab');
    expect(add(1, 'b')).toBe('1b');
    expect(multiply(3, 'ab')).toBe('ababab');
    expect(multiply([1], -1)).toEqual([]);
    expect(multiply('2', '3')).toBe(6);
    expect(modulo(-1, 5)).toBe(4);
  });

  it('indexes and slices sequences', () => {
    expect(indexSequence('héllo', 1)).toBe('é');
    expect(indexSequence([1], 0.5)).toBeUndefined();
    expect(sliceValue(safe('abc'), 1, null, null)).toBe('bc');
    expect(sliceValue([1, 2, 3], undefined, undefined, -2)).toEqual([3, 1]);
    expect(sliceValue(5, 0, 1, 1)).toBeUndefined();
  });

  it('recognises plain objects only', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(new Date())).toBe(false);
    expect(isPlainObject(null)).toBe(false);
  });
});
