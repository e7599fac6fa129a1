import { ExpressionEngine, TemplateError } from './index';

const e = new ExpressionEngine({ now: () => new Date(0), uuid: () => 'u' });

const scope = {
  n: 7,
  s: 'Hello, World',
  t: true,
  f: false,
  nil: null,
  list: [10, 20, 30, 40],
  empty: [],
  obj: { a: 1, items: 'own data', nested: { deep: 'x' } },
  emptyObj: {},
  matrix: [
    [1, 2],
    [3, 4],
  ],
  text: 'a,b,,c',
};

const render = (template: string, s: Record<string, unknown> = scope): unknown => e.renderString(template, s);

describe('tests (`is`)', () => {
  it.each([
    ['{{ n is defined }}', true],
    ['{{ missing is defined }}', false],
    ['{{ obj.nope.b is defined }}', false],
    ['{{ obj.nope.b is undefined }}', true],
    ['{{ nil is defined }}', true],
    ['{{ nil is none }}', true],
    ['{{ nil is None }}', true],
    ['{{ missing is none }}', false],
    ['{{ n is not none }}', true],
    ['{{ nil is not none }}', false],
    ['{{ n is number }}', true],
    ['{{ t is number }}', false],
    ['{{ "1" is number }}', false],
    ['{{ s is string }}', true],
    ['{{ n is string }}', false],
    ['{{ obj is mapping }}', true],
    ['{{ list is mapping }}', false],
    ['{{ list is sequence }}', true],
    ['{{ s is sequence }}', true],
    ['{{ n is sequence }}', false],
    ['{{ t is true }}', true],
    ['{{ 1 is true }}', false],
    ['{{ f is false }}', true],
    ['{{ f is False }}', true],
    ['{{ t is True }}', true],
    ['{{ 0 is false }}', false],
    ['{{ t is boolean }}', true],
    ['{{ 3 is integer }}', true],
    ['{{ 3.5 is float }}', true],
    ['{{ empty is falsy }}', true],
    ['{{ obj is truthy }}', true],
    ['{{ n is eq(7) }}', true],
    ['{{ list is equalto([10, 20, 30, 40]) }}', true],
    ['{{ n is ne(7) }}', false],
    ['{{ n is odd }}', true],
    ['{{ n is even }}', false],
    ['{{ 10 is divisibleby(5) }}', true],
    ['{{ n is gt(5) }}', true],
    ['{{ n is lt(5) }}', false],
    ['{{ 20 is in(list) }}', true],
    ['{{ "ell" is in(s) }}', true],
    ['{{ "a" is in(obj) }}', true],
    ['{{ "abc" is lower }}', true],
    ['{{ "ABC" is upper }}', true],
    ['{{ s is iterable }}', true],
    ['{{ range is callable }}', true],
    ['{{ n is callable }}', false],
    ['{{ list is sameas(list) }}', true],
    ['{{ "<b>" | escape is escaped }}', false],
  ])('%s -> %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });
});

describe('Python literals and operators', () => {
  it.each([
    ['{{ True }}', true],
    ['{{ False }}', false],
    ['{{ None }}', null],
    ['{{ true }}', true],
    ['{{ false }}', false],
    ['{{ none }}', null],
    ['{{ t == True }}', true],
    ['{{ t == true }}', true],
    ['{{ f != False }}', false],
    ['{{ nil == None }}', true],
    ['{{ missing == None }}', false],
    ['{{ missing != None }}', true],
    ['{{ missing == obj.nope }}', true],
    ['{{ nil == none }}', true],
    ['{{ 1 == True }}', true],
    ['{{ 0 == False }}', true],
    ['{{ 1 == "1" }}', false],
    ['{{ "a" == "a" }}', true],
    ['{{ [1, [2]] == [1, [2]] }}', true],
    ['{{ {"a": [1]} == {"a": [1]} }}', true],
    ['{{ {"a": 1} == {"a": 2} }}', false],
    ['{{ {"a": 1} == {"b": 1} }}', false],
    ['{{ 1 < n < 10 }}', true],
    ['{{ 1 < n > 10 }}', false],
    ['{{ n >= 7 and n <= 7 }}', true],
    ['{{ "a" < "b" }}', true],
    ['{{ [1, 2] < [1, 3] }}', true],
    ['{{ [1] < [1, 0] }}', true],
    ['{{ n === 7 }}', true],
    ['{{ n !== 7 }}', false],
    ['{{ n + 1 }}', 8],
    ['{{ n - 10 }}', -3],
    ['{{ n * 2 }}', 14],
    ['{{ n / 2 }}', 3.5],
    ['{{ n // 2 }}', 3],
    ['{{ -7 // 2 }}', -4],
    ['{{ n % 3 }}', 1],
    ['{{ -7 % 3 }}', 2],
    ['{{ 2 ** 8 }}', 256],
    ['{{ -n }}', -7],
    ['{{ +n }}', 7],
    ['{{ t + 1 }}', 2],
    ['{{ "ab" + "cd" }}', 'abcd'],
    ['{{ [1] + [2, 3] }}', [1, 2, 3]],
    ['{{ "ab" * 2 }}', 'abab'],
    ['{{ 2 * [0] }}', [0, 0]],
    ['{{ "n=" ~ n ~ "," ~ t ~ "," ~ nil }}', 'n=7,True,None'],
    ['{{ (1, 2) }}', [1, 2]],
    ['{{ (n) }}', 7],
    ['{{ 20 in list }}', true],
    ['{{ 25 in list }}', false],
    ['{{ 25 not in list }}', true],
    ['{{ "World" in s }}', true],
    ['{{ "world" in s }}', false],
    ['{{ "a" in obj }}', true],
    ['{{ "zz" in obj }}', false],
    ['{{ 1 in missing }}', false],
    ['{{ [1] in [[1], [2]] }}', true],
    ['{{ n in (7, 8) }}', true],
    ['{{ "x" if t else "y" }}', 'x'],
    ['{{ "x" if f else "y" }}', 'y'],
    ['{{ "x" if empty else "y" }}', 'y'],
    ['{{ "x" if emptyObj else "y" }}', 'y'],
    ['{{ "x" if f }}', null],
    ['{{ t and n }}', 7],
    ['{{ empty and n }}', []],
    ['{{ nil or "fallback" }}', 'fallback'],
    ['{{ empty or "fallback" }}', 'fallback'],
    ['{{ 0 or "" }}', ''],
    ['{{ n or missing.boom() }}', 7],
    ['{{ f and missing.boom() }}', false],
    ['{{ not empty }}', true],
    ['{{ not obj }}', false],
    ['{{ not missing }}', true],
    ['{{ not (t and f) }}', true],
  ])('%s -> %j', (template, expected) => {
    expect(render(template)).toEqual(expected);
  });

  it('uses Python truthiness in {% if %} blocks', () => {
    expect(render('{% if empty %}full{% elif emptyObj %}obj{% elif "" %}str{% else %}none{% endif %}')).toBe('none');
    expect(render('{% if list %}{{ list | length }}{% endif %}')).toBe('4');
  });

  it('loops with for, else and loop variables', () => {
    expect(render('{% for x in list %}{{ loop.index }}:{{ x }}{% if not loop.last %},{% endif %}{% endfor %}')).toBe('1:10,2:20,3:30,4:40');
    expect(render('{% for x in nil %}{{ x }}{% else %}nothing{% endfor %}')).toBe('nothing');
    expect(render('{% for k, v in {"a": 1, "b": 2}.items() %}{{ k }}={{ v }};{% endfor %}')).toBe('a=1;b=2;');
    expect(render('{% for k, v in obj %}{{ k }};{% endfor %}')).toBe('a;items;nested;');
    expect(() => render('{{ obj.items() }}')).toThrow(/obj.items is not callable/);
    expect(render('{% for a, b in matrix %}{{ a + b }} {% endfor %}')).toBe('3 7 ');
    expect(render('{% for c in "ab" %}[{{ c }}]{% endfor %}')).toBe('[a][b]');
  });

  it('supports set, set blocks and switch', () => {
    expect(render('{% set a, b = 1 %}{{ a }}{{ b }}')).toBe('11');
    expect(render('{% set msg %}hi {{ n }}{% endset %}{{ msg | upper }}')).toBe('HI 7');
    expect(render('{% switch n %}{% case 7 %}seven{% default %}other{% endswitch %}')).toBe('seven');
  });

  it('supports the range() global like Python', () => {
    expect(render('{{ range(3) }}')).toEqual([0, 1, 2]);
    expect(render('{{ range(1, 7, 2) }}')).toEqual([1, 3, 5]);
    expect(render('{{ range(3, 0, -1) }}')).toEqual([3, 2, 1]);
    expect(() => render('{{ range(0, 1, 0) }}')).toThrow(/step must not be zero/);
    expect(() => render('{{ range(1.5) }}')).toThrow(/must be integers/);
    expect(() => render('{{ range(10000000) }}')).toThrow(/range\(\) of 10000000 items is too large \(limit 100000, maxRangeSize\)/);
    expect(() => render('{{ range(stop=3) }}')).toThrow(/keyword arguments/);
    expect(() => render('{{ now(1, x=2) }}')).toThrow(/keyword arguments/);
  });

  it('refuses oversized repetition', () => {
    expect(() => render('{{ "ab" * 100000000 }}')).toThrow(/a string of 200000000 characters is too long/);
    expect(() => render('{{ [1, 2] * 1000000 }}')).toThrow(/a list of 2000000 items is too long/);
  });
});

describe('undefined values', () => {
  it.each([
    ['{{ missing }}', null],
    ['[{{ missing }}]', '[]'],
    ['{{ obj.nope }}', null],
    ['{{ obj.nope.deeper.still }}', null],
    ['{{ obj.nope["x"][0] }}', null],
    ['{{ list[99] }}', null],
    ['{{ list[99].x }}', null],
    ['{{ n.x }}', null],
    ['{{ nil.x }}', null],
    ['[{{ obj.a.b }}]', '[]'],
    ['{{ missing | default("d") }}', 'd'],
    ['{{ obj.nope.deeper | default("d") }}', 'd'],
    ['{{ missing | length }}', 0],
    ['{{ missing | string }}', ''],
    ['{{ missing | upper }}', ''],
    ['{{ "a" ~ missing ~ "b" }}', 'ab'],
    ['{{ missing is defined }}', false],
    ['{{ not missing }}', true],
    ['{{ obj.nope < 1 }}', false],
    ['{{ 1 in missing }}', false],
    ['{% if missing %}y{% else %}n{% endif %}', 'n'],
  ])('%s -> %j', (template, expected) => {
    expect(render(template)).toEqual(expected);
  });

  it.each([
    ['{{ nothing.here.at_all }}', "'nothing' is undefined (line 1, column 4)"],
    ['{{ missing["a"] }}', "'missing' is undefined"],
    ['{{ missing[1:] }}', "'missing' is undefined"],
    ['{{ missing.upper() }}', "'missing' is undefined"],
    ['{{ missing + 1 }}', "'missing' is undefined"],
    ['{{ 1 - obj.nope }}', "'obj.nope' is undefined"],
    ['{{ -missing }}', "'missing' is undefined"],
    ['{{ obj.nope * 2 }}', "'obj.nope' is undefined"],
    ['{{ n / list[9] }}', "'list[9]' is undefined"],
    ['{{ n // missing }}', "'missing' is undefined"],
    ['{{ n % missing }}', "'missing' is undefined"],
    ['{{ n ** missing }}', "'missing' is undefined"],
    ['{% set x = obj.nope %}{{ x.y }}', "'x' is undefined"],
    ['{% for x in missing %}{{ x }}{% else %}nothing{% endfor %}', "'missing' is undefined"],
    ['{% for k, v in obj.nope %}{{ k }}{% endfor %}', "'obj.nope' is undefined"],
    ['{{ obj.nope | join(",") }}', "'obj.nope' is undefined"],
    ['{{ missing | first }}', "'missing' is undefined"],
    ['{{ missing | list }}', "'missing' is undefined"],
    ['{{ missing | int }}', "'missing' is undefined"],
    ['{{ missing | tojson }}', "'missing' is undefined"],
    ['{{ [1, obj.nope] | map("int") | list }}', 'int: the value is undefined'],
    ['{{ [{"a": 1}, {}] | sum(attribute="a") }}', 'cannot add an undefined value'],
  ])('%s fails the render naming the undefined value', (template, message) => {
    let error: unknown;
    try {
      render(template);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(TemplateError);
    expect(error).toMatchObject({ expression: template });
    expect((error as TemplateError).message).toContain(message);
    expect((error as TemplateError).code).toBe('template_undefined');
  });
});

describe('indexing and slicing', () => {
  it.each([
    ['{{ list[0] }}', 10],
    ['{{ list[-1] }}', 40],
    ['{{ list[-4] }}', 10],
    ['{{ list[-5] }}', null],
    ['{{ list[1.5] }}', null],
    ['{{ matrix[1][0] }}', 3],
    ['{{ matrix.1.0 }}', 3],
    ['{{ matrix.0.1 }}', 2],
    ['{{ matrix.1[1] }}', 4],
    ['{{ obj["a"] }}', 1],
    ['{{ obj.nested.deep }}', 'x'],
    ['{{ s[0] }}', 'H'],
    ['{{ s[-1] }}', 'd'],
    ['{{ s.length }}', 12],
    ['{{ list.length }}', 4],
    ['{{ list[1:3] }}', [20, 30]],
    ['{{ list[:2] }}', [10, 20]],
    ['{{ list[2:] }}', [30, 40]],
    ['{{ list[-2:] }}', [30, 40]],
    ['{{ list[:-1] }}', [10, 20, 30]],
    ['{{ list[::2] }}', [10, 30]],
    ['{{ list[::-1] }}', [40, 30, 20, 10]],
    ['{{ list[3:0:-1] }}', [40, 30, 20]],
    ['{{ list[10:] }}', []],
    ['{{ list[-10:1] }}', [10]],
    ['{{ list[:] }}', [10, 20, 30, 40]],
    ['{{ list[None:2] }}', [10, 20]],
    ['{{ s[:5] }}', 'Hello'],
    ['{{ s[::-1][:5] }}', 'dlroW'],
    ['{{ obj[1:2] }}', null],
    ['{{ [list[1:2]] }}', [[20]]],
  ])('%s -> %j', (template, expected) => {
    expect(render(template)).toEqual(expected);
  });

  it.each([
    ['{{ list[1:2:3:4] }}', /too many slice components/],
    ['{{ list[1 2] }}', /expected/],
    ['{{ list["a":] }}', /slice indices must be integers/],
    ['{{ list[::"x"] }}', /slice indices must be integers/],
    ['{{ [1:2] }}', /a slice is only allowed inside a subscript/],
    ['{{ list[] }}', /invalid index/],
    ['{{ list.+ }}', /expected name as lookup value/],
  ])('%s is an error', (template, message) => {
    expect(() => render(template)).toThrow(TemplateError);
    expect(() => render(template)).toThrow(message);
  });
});

describe('Python methods', () => {
  it.each([
    ['{{ obj.get("a") }}', 1],
    ['{{ obj.get("zz") }}', null],
    ['{{ obj.get("zz", 5) }}', 5],
    ['{{ obj.get(1) }}', null],
    ['{{ obj.keys() }}', ['a', 'items', 'nested']],
    ['{{ obj.values() | length }}', 3],
    ['{{ obj.items }}', 'own data'],
    ['{{ {"k": 1}.items() }}', [['k', 1]]],
    ['{{ s.startswith("Hell") }}', true],
    ['{{ s.startswith(["x", "H"]) }}', true],
    ['{{ s.startswith("World", 7) }}', true],
    ['{{ s.endswith("World") }}', true],
    ['{{ s.endswith(("x", "y")) }}', false],
    ['{{ text.split(",") }}', ['a', 'b', '', 'c']],
    ['{{ text.split(",", 1) }}', ['a', 'b,,c']],
    ['{{ "  a  b ".split() }}', ['a', 'b']],
    ['{{ "a b c".split(None, 1) }}', ['a', 'b c']],
    ['{{ "".split() }}', []],
    ['{{ "  hi  ".strip() }}', 'hi'],
    ['{{ "xxhixx".strip("x") }}', 'hi'],
    ['{{ "  hi  ".lstrip() }}', 'hi  '],
    ['{{ "  hi  ".rstrip() }}', '  hi'],
    ['{{ s.upper() }}', 'HELLO, WORLD'],
    ['{{ s.lower() }}', 'hello, world'],
    ['{{ "hello wORLD".title() }}', 'Hello World'],
    ['{{ "hello".capitalize() }}', 'Hello'],
    ['{{ s.replace("l", "L") }}', 'HeLLo, WorLd'],
    ['{{ s.replace("l", "L", 1) }}', 'HeLlo, World'],
    ['{{ ",".join(["a", "b"]) }}', 'a,b'],
    ['{{ "-".join("ab") }}', 'a-b'],
    ['{{ s.find("World") }}', 7],
    ['{{ s.count("l") }}', 3],
    ['{{ "".count("") }}', 1],
    ['{{ "123".isdigit() }}', true],
    ['{{ list.index(30) }}', 2],
    ['{{ [1, 1, 2].count(1) }}', 2],
  ])('%s -> %j', (template, expected) => {
    expect(render(template)).toEqual(expected);
  });

  it('does not mutate the receiver', () => {
    const data = { list: [3, 1] };
    render('{{ list.index(1) }}{{ list | sort }}{{ list | reverse }}', data);
    expect(data.list).toEqual([3, 1]);
  });

  it.each([
    ['{{ list.index(99) }}', /99 is not in list/],
    ['{{ s.split("") }}', /empty separator/],
    ['{{ s.split(1) }}', /separator must be a string/],
    ['{{ s.split(",", "x") }}', /maxsplit must be an integer/],
    ['{{ s.startswith(1) }}', /prefix must be a string/],
    ['{{ ",".join(1) }}', /join\(\) argument must be a list/],
    ['{{ s.replace("a", "b", count=1) }}', /does not accept keyword arguments/],
    ['{{ list.append(1) }}', /list.append is undefined and cannot be called/],
    ['{{ obj.update({}) }}', /obj.update is undefined/],
  ])('%s fails', (template, message) => {
    expect(() => render(template)).toThrow(message);
  });
});

describe('other tags', () => {
  it('applies a filter block', () => {
    expect(render('{% filter upper %}hi {{ n }}{% endfilter %}')).toBe('HI 7');
  });

  it('keeps whitespace control', () => {
    expect(render('a {%- if t -%} b {%- endif -%} c')).toBe('abc');
  });
});
