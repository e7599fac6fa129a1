import {
  asJson,
  checkKeys,
  childPath,
  deepMerge,
  describe as describeValue,
  isRecord,
  pick,
  readBoolean,
  readNumber,
  readPath,
  readWhen,
} from './policy-values';

type Reported = Array<[string, string]>;
const collect = (): { reports: Reported; report: (p: string, m: string) => void } => {
  const reports: Reported = [];
  return { reports, report: (p, m) => reports.push([p, m]) };
};

describe('policy values', () => {
  it('childPath quotes keys that are not identifiers', () => {
    expect(childPath('a', 'b_1')).toBe('a.b_1');
    expect(childPath('', 'b')).toBe('b');
    expect(childPath('set', 'ctx.x')).toBe('set["ctx.x"]');
    expect(childPath('h', 'X-Cursor')).toBe('h["X-Cursor"]');
  });

  it('isRecord accepts plain and null-prototype objects only', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord(Object.create(null))).toBe(true);
    expect(isRecord([])).toBe(false);
    expect(isRecord(null)).toBe(false);
    expect(isRecord(new Date())).toBe(false);
  });

  it('describe names a value briefly', () => {
    expect(describeValue(null)).toBe('null');
    expect(describeValue([1])).toBe('a list');
    expect(describeValue({})).toBe('a mapping');
    expect(describeValue('x'.repeat(50))).toBe(`"${'x'.repeat(40)}..."`);
    expect(describeValue(1.5)).toBe('1.5');
    expect(describeValue(undefined)).toBe('undefined');
  });

  it('pick skips null and undefined', () => {
    expect(pick({ a: null, b: 0 }, ['a', 'b'])).toEqual({ key: 'b', value: 0 });
    expect(pick({}, ['a'])).toBeUndefined();
  });

  it('checkKeys reports each unknown key', () => {
    const { reports, report } = collect();
    checkKeys({ a: 1, b: 2, c: 3 }, ['a'], 'p', report, 'x');
    expect(reports.map(([p]) => p)).toEqual(['p.b', 'p.c']);
  });

  it('readNumber applies its rules', () => {
    const { reports, report } = collect();
    expect(readNumber({ n: 2 }, ['n'], 9, 'p', report, { integer: true, min: 1 })).toBe(2);
    expect(readNumber({ n: Number.NaN }, ['n'], 9, 'p', report, {})).toBe(9);
    expect(readNumber({}, ['n'], 9, 'p', report, {})).toBe(9);
    expect(reports).toEqual([['p.n', 'must be a number, got NaN']]);
  });

  it('readBoolean falls back when absent', () => {
    const { reports, report } = collect();
    expect(readBoolean({}, 'j', true, 'p', report)).toBe(true);
    expect(readBoolean({ j: false }, 'j', true, 'p', report)).toBe(false);
    expect(reports).toEqual([]);
  });

  it('readWhen accepts templates and booleans', () => {
    const { reports, report } = collect();
    expect(readWhen(false, 'w', report)).toBe(false);
    expect(readWhen('{{ x }}', 'w', report)).toBe('{{ x }}');
    expect(readWhen(undefined, 'w', report)).toBeUndefined();
    expect(readWhen({}, 'w', report)).toBeUndefined();
    expect(reports).toEqual([['w', 'must be a template string or a boolean, got a mapping']]);
  });

  it('asJson accepts JSON and reports the first offending path', () => {
    const { reports, report } = collect();
    expect(asJson({ a: [1, 'x', null, true, { b: 2 }] }, 'v', report)).toEqual({ a: [1, 'x', null, true, { b: 2 }] });
    expect(asJson({ a: [1, { b: undefined }] }, 'v', report)).toBeUndefined();
    expect(reports).toEqual([['v.a[1].b', 'must be a JSON value (string, number, boolean, null, list or mapping), got undefined']]);
  });

  it('readPath walks mappings and lists', () => {
    expect(readPath({ a: [{ b: 1 }] }, 'a.0.b')).toBe(1);
    expect(readPath({ a: [{ b: 1 }] }, 'a[0].b')).toBe(1);
    expect(readPath({ a: 1 }, 'a.b')).toBeUndefined();
    expect(readPath({ a: 1 }, 'toString')).toBeUndefined();
    expect(readPath({ a: 1 }, '')).toEqual({ a: 1 });
  });

  it('deepMerge merges mappings, replaces the rest, skips undefined', () => {
    expect(deepMerge({ a: { b: 1, c: 2 } }, { a: { c: 3, d: undefined } })).toEqual({ a: { b: 1, c: 3 } });
    expect(deepMerge([1], [2])).toEqual([2]);
    expect(deepMerge({ a: 1 }, 'x')).toBe('x');
  });
});
