import type { SetOp } from '../model';
import { compileSet } from './compile-set';

type Reported = Array<[string, string]>;

function compile(raw: unknown, bareScope: SetOp['scope'] = 'local'): { ops: SetOp[]; reports: Reported } {
  const reports: Reported = [];
  const ops = compileSet(raw, 'workflow[1].set', (path, message) => reports.push([path, message]), bareScope);
  return { ops, reports };
}

describe('compileSet', () => {
  it('maps ctx., vars., iter. and step. prefixes to scopes and a bare key to the given scope, in order', () => {
    const { ops, reports } = compile({
      'ctx.offset': '{{ ctx.offset + 10 }}',
      'vars.limit': 5,
      'iter.page': { rows: [1, 2] },
      'step.has_more': false,
      fetch_result: '{{ output }}',
      'config.timeout': 30,
    });
    expect(reports).toEqual([]);
    expect(ops).toEqual([
      { scope: 'ctx', key: 'offset', value: '{{ ctx.offset + 10 }}' },
      { scope: 'ctx', key: 'limit', value: 5 },
      { scope: 'iter', key: 'page', value: { rows: [1, 2] } },
      { scope: 'step', key: 'has_more', value: false },
      { scope: 'local', key: 'fetch_result', value: '{{ output }}' },
      { scope: 'local', key: 'config.timeout', value: 30 },
    ]);
  });

  it('keeps dotted nested keys after the scope', () => {
    expect(compile({ 'ctx.config.timeout': 3 }).ops).toEqual([{ scope: 'ctx', key: 'config.timeout', value: 3 }]);
  });

  it.each<SetOp['scope']>(['ctx', 'iter', 'step', 'local'])('gives a bare key the %s scope when asked', (scope) => {
    expect(compile({ x: 1 }, scope).ops).toEqual([{ scope, key: 'x', value: 1 }]);
  });

  it('reads the nested spelling ctx: {k: v}', () => {
    expect(compile({ ctx: { a: 1, b: '{{ x }}' }, iter: { c: null } }).ops).toEqual([
      { scope: 'ctx', key: 'a', value: 1 },
      { scope: 'ctx', key: 'b', value: '{{ x }}' },
      { scope: 'iter', key: 'c', value: null },
    ]);
  });

  it('keeps literal types as written', () => {
    expect(compile({ 'ctx.computed': 200, 'ctx.flag': true, 'ctx.none': null, 'ctx.list': [1, 'a'] }).ops.map((op) => op.value)).toEqual([
      200,
      true,
      null,
      [1, 'a'],
    ]);
  });

  it('compiles an absent set to nothing', () => {
    expect(compile(undefined)).toEqual({ ops: [], reports: [] });
    expect(compile(null)).toEqual({ ops: [], reports: [] });
  });

  it.each<[string, unknown, string, RegExp]>([
    ['a list', ['ctx.a'], 'workflow[1].set', /set must be a mapping of key to value, got a list/],
    ['a string', 'ctx.a=1', 'workflow[1].set', /got "ctx.a=1"/],
    ['an empty key after the scope', { 'ctx.': 1 }, 'workflow[1].set["ctx."]', /dotted path of names, got ""/],
    ['an empty segment', { 'ctx.a..b': 1 }, 'workflow[1].set["ctx.a..b"]', /dotted path/],
    ['an empty key', { '': 1 }, 'workflow[1].set[""]', /dotted path/],
    ['a bare scope name with a scalar', { ctx: 5 }, 'workflow[1].set.ctx', /`ctx` alone is a scope/],
    ['a date value', { 'ctx.when': new Date(0) }, 'workflow[1].set["ctx.when"]', /must be a JSON value .* got a date/],
    ['a nested function value', { 'ctx.x': { f: () => 1 } }, 'workflow[1].set["ctx.x"].f', /got function/],
    ['a non-finite number in a list', { 'ctx.x': [1, Infinity] }, 'workflow[1].set["ctx.x"][1]', /got Infinity/],
  ])('reports %s', (_name, raw, path, message) => {
    const { ops, reports } = compile(raw);
    expect(ops).toEqual([]);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.[0]).toBe(path);
    expect(reports[0]?.[1]).toMatch(message);
  });

  it('skips only the bad entries', () => {
    const { ops, reports } = compile({ 'ctx.a': 1, 'ctx.': 2, 'iter.b': 3 });
    expect(ops).toEqual([
      { scope: 'ctx', key: 'a', value: 1 },
      { scope: 'iter', key: 'b', value: 3 },
    ]);
    expect(reports).toHaveLength(1);
  });
});
