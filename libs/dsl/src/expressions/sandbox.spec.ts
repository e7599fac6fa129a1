import { ExpressionEngine, TemplateError } from './index';

/**
 * Escape attempts. Each must either fail with a TemplateError or render
 * harmlessly (empty / undefined / plain data), and none may reach a host
 * object (a function, a prototype, `process`) or pollute Object.prototype.
 */

const e = new ExpressionEngine({ now: () => new Date(0), uuid: () => 'u' });

const hostFunction = jest.fn(() => 'called');
class Account {
  balance = 10;
  reveal(): string {
    return 'secret';
  }
}

const scope = (): Record<string, unknown> => ({
  x: { a: 1 },
  s: 'str',
  list: [1, 2],
  fn: hostFunction,
  holder: { fn: hostFunction, getter: undefined },
  account: new Account(),
  parsed: JSON.parse('{"__proto__": {"polluted": "via-json"}, "constructor": {"prototype": {"polluted": 1}}}'),
});

const isHostObject = (value: unknown): boolean =>
  typeof value === 'function' ||
  value === Object.prototype ||
  value === Function.prototype ||
  value === Array.prototype ||
  value === String.prototype ||
  (typeof value === 'object' && value !== null && 'env' in value && 'pid' in value);

const harmless = (value: unknown): boolean => {
  if (isHostObject(value)) return false;
  if (typeof value === 'string') return !/native code|\[object |function |process/i.test(value);
  if (Array.isArray(value)) return value.every(harmless);
  if (typeof value === 'object' && value !== null) {
    const proto: unknown = Object.getPrototypeOf(value);
    return (proto === Object.prototype || proto === null) && Object.values(value).every(harmless);
  }
  return true;
};

const CORPUS: string[] = [
  "{{ ''.constructor.constructor('return process')() }}",
  "{{ ''['constructor']['constructor']('return process')() }}",
  '{{ range.constructor("return process")() }}',
  '{{ range["constructor"]("return process")() }}',
  '{{ cycler.constructor("return process")() }}',
  '{{ cycler().next.constructor("return process")() }}',
  '{{ joiner.constructor("return process")() }}',
  '{{ joiner()() }}',
  '{{ x.__proto__ }}',
  "{{ x['__proto__']['polluted'] }}",
  '{{ x.__proto__.polluted }}',
  '{{ [].constructor }}',
  '{{ ({}).constructor }}',
  '{{ {}.constructor }}',
  '{{ x.constructor.prototype }}',
  '{{ x.__defineGetter__ }}',
  '{{ x.__lookupGetter__("a") }}',
  '{{ lipsum.__globals__ }}',
  "{{ lipsum.__globals__['os'].popen('id').read() }}",
  '{{ self }}',
  '{{ self.__init__.__globals__ }}',
  '{{ caller }}',
  '{{ caller() }}',
  '{{ config.__class__.__init__.__globals__ }}',
  "{{ ''.__class__.__mro__[1].__subclasses__() }}",
  '{{ process }}',
  '{{ process.env }}',
  '{{ global }}',
  '{{ globalThis }}',
  '{{ require("child_process") }}',
  '{{ this }}',
  '{{ env }}',
  '{{ context }}',
  '{{ runtime }}',
  '{{ frame }}',
  '{{ constructor }}',
  '{{ toString }}',
  '{{ valueOf() }}',
  '{{ hasOwnProperty("x") }}',
  '{{ x.toString }}',
  '{{ x.toString() }}',
  '{{ x.valueOf() }}',
  '{{ x.hasOwnProperty("a") }}',
  '{{ s.constructor }}',
  '{{ s.at(0) }}',
  '{{ s.concat.call }}',
  '{{ list.map }}',
  '{{ list.push(3) }}',
  '{{ list.constructor.from }}',
  '{{ range.call(null, 3) }}',
  '{{ range.apply(null, [3]) }}',
  '{{ range.bind(null)(3) }}',
  '{{ range.name }}',
  '{{ now.caller }}',
  '{{ uuid.arguments }}',
  '{{ fn }}',
  '{{ fn() }}',
  '{{ holder.fn }}',
  '{{ holder.fn() }}',
  '{{ holder["fn"]() }}',
  '{{ (holder.fn)() }}',
  '{{ account.reveal }}',
  '{{ account.reveal() }}',
  '{{ account.balance }}',
  '{{ parsed }}',
  '{{ parsed.polluted }}',
  '{{ parsed.__proto__ }}',
  '{{ parsed["constructor"]["prototype"] }}',
  '{% set k = "constructor" %}{{ x[k] }}',
  '{% set k = "constructor" %}{{ x[k][k]("return process")() }}',
  '{% set k = "__proto__" %}{{ x[k] }}',
  '{{ x["__pro" ~ "to__"] }}',
  '{{ x["con" ~ "structor"]["con" ~ "structor"] }}',
  '{{ s["constr" + "uctor"] }}',
  '{{ x | attr("constructor") }}',
  '{{ x | attr("__proto__") }}',
  '{{ s | attr("constructor") | attr("constructor") }}',
  '{{ [x] | map(attribute="constructor") | list }}',
  '{{ [x] | map("constructor") }}',
  '{{ [x] | map("__proto__") }}',
  '{{ [x] | select("constructor") }}',
  '{{ [x] | selectattr("constructor") | list }}',
  '{{ [x] | sum(attribute="constructor") }}',
  '{{ [x] | join(",", attribute="constructor") }}',
  '{{ [x, x] | sort(attribute="constructor") }}',
  '{{ [x] | groupby("constructor") }}',
  '{{ x | dictsort }}',
  '{{ x | list }}',
  '{{ x | random }}',
  '{% set __proto__ = {"polluted": 1} %}',
  '{% set __proto__ = {"polluted": 1} %}{{ polluted }}',
  '{% set constructor = 1 %}{{ constructor }}',
  '{% set x = {"__proto__": {"polluted": 1} } %}{{ x.polluted }}',
  '{% set x = {"a": {"polluted": 1} } %}{{ x.a.polluted }}',
  '{% set x.constructor.prototype.polluted = 1 %}',
  '{% set x.__proto__.polluted = 1 %}',
  '{% for __proto__ in [1] %}{% endfor %}',
  '{% for k, v in {"a": 1} %}{% set __proto__ = v %}{% endfor %}',
  '{{ {"__proto__": {"polluted": 1} } }}',
  '{{ {"constructor": {"prototype": {"polluted": 1} } } }}',
  '{{ dict(__proto__={"polluted": 1} ) }}',
  '{{ range(__proto__=1) }}',
  '{% macro m() %}{{ caller() }}{% endmacro %}{{ m() }}',
  '{% call m() %}x{% endcall %}',
  '{% include "/etc/passwd" %}',
  '{% import "x" as y %}',
  '{% from "x" import y %}',
  '{% extends "x" %}',
  '{% block b %}{% endblock %}',
  '{{ r/(a+)+$/.test("aaaa") }}',
  '{{ a"+process.exit(1)+"b }}',
  '{{ x[\'\\\\"]() }}',
  '{{ x["\\"); process.exit(1); ("" ]() }}',
  '{{ x is constructor }}',
  '{{ x is __proto__ }}',
  '{{ x | constructor }}',
  '{{ x | __proto__ }}',
  '{{ range(10000000000) }}',
  '{{ range(0, 10000000000, 1) }}',
  '{{ "a" * 1000000000 }}',
  '{{ [1] * 100000000 }}',
];

describe('sandbox', () => {
  afterEach(() => {
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(hostFunction).not.toHaveBeenCalled();
  });

  it.each(CORPUS)('contains %s', (template) => {
    let rendered: unknown;
    try {
      rendered = e.renderString(template, scope());
    } catch (error) {
      expect(error).toBeInstanceOf(TemplateError);
      return;
    }
    expect(harmless(rendered)).toBe(true);
  });

  it('never leaks a host value through renderValue', () => {
    const out = e.renderValue({ a: '{{ fn }}', b: ['{{ holder }}'], c: '{{ account }}' }, scope());
    expect(harmless((out as { a: unknown }).a)).toBe(true);
    expect((out as { b: [{ fn: unknown }] }).b[0].fn).toBe(hostFunction);
  });

  it('reports forbidden names statically, before rendering', () => {
    expect(e.checkSyntax("{{ ''.constructor.constructor('return process')() }}")).toEqual([
      { message: "access to 'constructor' is not allowed", line: 1, column: 7 },
      { message: "access to 'constructor' is not allowed", line: 1, column: 19 },
    ]);
    expect(e.checkSyntax('{% set __proto__ = 1 %}')).toEqual([{ message: "access to '__proto__' is not allowed", line: 1, column: 8 }]);
  });

  it('refuses a template that takes part of a keychain value, statically and at render, and lets it use one whole', () => {
    const parts = [
      '{{ keychain.api.token[0:7] }}{{ keychain.api.token[7:] }}',
      '{{ keychain.api.token[3] }}',
      '{{ keychain["api"].token | truncate(7) }}',
      '{{ (keychain.api.token).split("-") }}',
      '{{ keychain.api.token | first }}',
    ];
    for (const template of parts) {
      expect({ template, problems: e.checkSyntax(template).map((p) => p.message) }).toEqual({
        template,
        problems: expect.arrayContaining([expect.stringContaining('a template may not take part of a keychain value')]),
      });
      expect(() => e.renderString(template, { keychain: { api: { token: 'abcdefg-hijklmn' } } })).toThrow(
        'a template may not take part of a keychain value',
      );
    }
    const whole = { keychain: { api: { token: 'abcdefg-hijklmn' } }, rows: 'abcdef' };
    expect(e.renderString('Bearer {{ keychain.api.token }} {{ keychain.api.token | b64encode }} {{ rows[0:2] }}', whole)).toBe(
      `Bearer abcdefg-hijklmn ${Buffer.from('abcdefg-hijklmn').toString('base64')} ab`,
    );
  });

  it('reads data held under dangerous names only as plain data', () => {
    const data = { d: JSON.parse('{"constructor": "c", "__proto__": "p"}') };
    expect(e.renderString('{% set k = "constructor" %}{{ d[k] }}', data)).toBe('');
    expect(e.renderString('{{ d | tojson }}', data)).toBe('{"constructor":"c","__proto__":"p"}');
  });

  it('does not change nunjucks for other users in the process', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nunjucks: { renderString(src: string, ctx: object): string } = require('nunjucks');
    expect(nunjucks.renderString('{{ x.toString() }}', { x: {} })).toBe('[object Object]');
    expect(nunjucks.renderString('{{ [] or "x" }}|{{ True }}', {})).toBe('|');
  });
});
