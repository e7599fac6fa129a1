import { ExpressionEngine, TemplateError } from './index';

const e = new ExpressionEngine({ now: () => new Date(0), uuid: () => 'u' });

const scope = {
  n: 7,
  f: 3.7,
  s: 'Hello World',
  num: '12',
  dec: '3.7',
  bad: 'abc',
  yes: true,
  no: false,
  nil: null,
  list: [3, 1, 2],
  words: ['a', 'b', 'c'],
  obj: { b: 2, a: 1 },
  users: [
    { name: 'ann', age: 30, team: { id: 'x' } },
    { name: 'bob', age: 20, team: { id: 'y' } },
  ],
  quote: "it's",
  html: '<b>&</b>',
  padded: '  hi  ',
  unicode: 'héllo ✓',
};

const render = (template: string): unknown => e.renderString(template, scope);

describe('filters', () => {
  it.each([
    // int: Jinja int(), then int(float()), else the default
    ['{{ num | int }}', 12],
    ['{{ dec | int }}', 3],
    ['{{ f | int }}', 3],
    ['{{ -3.7 | int }}', -3],
    ['{{ " 42 " | int }}', 42],
    ['{{ "1_000" | int }}', 1000],
    ['{{ "1e3" | int }}', 1000],
    ['{{ bad | int }}', 0],
    ['{{ bad | int(-1) }}', -1],
    ['{{ bad | int(default=5) }}', 5],
    ['{{ nil | int }}', 0],
    ['{{ yes | int }}', 1],
    ['{{ "" | int }}', 0],
    ['{{ "inf" | int }}', 0],
    ['{{ "ff" | int(0, 16) }}', 255],
    ['{{ "0x1A" | int(base=16) }}', 26],
    ['{{ "0b101" | int(0, 2) }}', 5],
    ['{{ "zz" | int(7, 16) }}', 7],
    ['{{ list | int }}', 0],
    // float
    ['{{ dec | float }}', 3.7],
    ['{{ num | float }}', 12],
    ['{{ ".5" | float }}', 0.5],
    ['{{ "1e-2" | float }}', 0.01],
    ['{{ "-inf" | float }}', -Infinity],
    ['{{ bad | float }}', 0],
    ['{{ bad | float(1.5) }}', 1.5],
    ['{{ bad | float(default=2) }}', 2],
    ['{{ no | float }}', 0],
    // string: Python str()
    ['{{ yes | string }}', 'True'],
    ['{{ no | string }}', 'False'],
    ['{{ nil | string }}', 'None'],
    ['{{ missing | string }}', ''],
    ['{{ n | string }}', '7'],
    ['{{ list | string }}', '[3, 1, 2]'],
    ['{{ obj | string }}', "{'b': 2, 'a': 1}"],
    ['{{ quote | string }}', "it's"],
    ['{{ [quote, "a\\\\b"] | string }}', "[\"it's\", 'a\\\\b']"],
    ['{{ yes | string | lower }}', 'true'],
    // length / count
    ['{{ s | length }}', 11],
    ['{{ unicode | length }}', 7],
    ['{{ list | length }}', 3],
    ['{{ obj | length }}', 2],
    ['{{ missing | length }}', 0],
    ['{{ nil | count }}', 0],
    // default / d
    ['{{ missing | default("d") }}', 'd'],
    ['{{ obj.deep.er | default("d") }}', 'd'],
    ['{{ missing | default }}', ''],
    ['{{ nil | default("d") }}', null],
    ['{{ "" | default("d") }}', ''],
    ['{{ "" | default("d", true) }}', 'd'],
    ['{{ 0 | default(5, true) }}', 5],
    ['{{ [] | default([1], boolean=true) }}', [1]],
    ['{{ n | default(5, true) }}', 7],
    ['{{ missing | d("x") }}', 'x'],
    ['{{ missing | default(default_value="kw") }}', 'kw'],
    ['{{ missing | default(n) }}', 7],
    // tojson / fromjson
    ['{{ obj | tojson }}', '{"b":2,"a":1}'],
    ['{{ quote | tojson }}', '"it\'s"'],
    ['{{ html | tojson }}', '"<b>&</b>"'],
    ['{{ [yes, nil, 1.5] | tojson }}', '[true,null,1.5]'],
    ['{{ {"a": [1]} | tojson(2) }}', '{\n  "a": [\n    1\n  ]\n}'],
    ['{{ {"a": 1} | tojson(indent=1) }}', '{\n "a": 1\n}'],
    ['{{ \'{"a": [1, 2]}\' | fromjson }}', { a: [1, 2] }],
    ['{{ "[1,2]" | fromjson | length }}', 2],
    ['{{ obj | fromjson }}', { b: 2, a: 1 }],
    ['{{ missing | fromjson }}', null],
    ['{{ obj | tojson | fromjson }}', { b: 2, a: 1 }],
    // lower / upper
    ['{{ s | lower }}', 'hello world'],
    ['{{ s | upper }}', 'HELLO WORLD'],
    ['{{ yes | lower }}', 'true'],
    ['{{ no | upper }}', 'FALSE'],
    ['{{ missing | lower }}', ''],
    // replace
    ['{{ quote | replace("\'", "\'\'") }}', "it''s"],
    ['{{ "aaa" | replace("a", "b", 2) }}', 'bba'],
    ['{{ "ab" | replace("", "-") }}', '-a-b-'],
    ['{{ n | replace("7", "seven") }}', 'seven'],
    ['{{ yes | replace("True", "yes") }}', 'yes'],
    // first / last
    ['{{ list | first }}', 3],
    ['{{ list | last }}', 2],
    ['{{ s | first }}', 'H'],
    ['{{ s | last }}', 'd'],
    ['{{ obj | first }}', 'b'],
    ['{{ [] | first }}', null],
    ['{{ nil | first }}', null],
    // join
    ['{{ words | join(",") }}', 'a,b,c'],
    ['{{ words | join }}', 'abc'],
    ['{{ [1, yes, nil] | join("|") }}', '1|True|None'],
    ['{{ users | join(", ", attribute="name") }}', 'ann, bob'],
    ['{{ users | join(d="/", attribute="team.id") }}', 'x/y'],
    ['{{ nil | join(",") }}', ''],
    // base64
    ['{{ "hello" | b64encode }}', 'aGVsbG8='],
    ['{{ unicode | b64encode | b64decode }}', 'héllo ✓'],
    ['{{ "aGVsbG8" | b64decode }}', 'hello'],
    ['{{ "Pz8-" | b64decode }}', '??>'],
    // attr / sum / map / items / unique / min / max / list / bool
    ['{{ obj | attr("a") }}', 1],
    ['{{ users | sum(attribute="age") }}', 50],
    ['{{ list | sum }}', 6],
    ['{{ list | sum(start=10) }}', 16],
    ['{{ users | map(attribute="name") | list }}', ['ann', 'bob']],
    ['{{ users | map(attribute="missing", default="?") | list }}', ['?', '?']],
    ['{{ ["1", "2"] | map("int") | list }}', [1, 2]],
    ['{{ words | map("upper") | join }}', 'ABC'],
    [
      '{{ obj | items }}',
      [
        ['b', 2],
        ['a', 1],
      ],
    ],
    ['{{ nil | items }}', []],
    ['{{ [1, 2, 1, "1"] | unique }}', [1, 2, '1']],
    ['{{ list | min }}', 1],
    ['{{ list | max }}', 3],
    ['{{ users | min(attribute="age") }}', { name: 'bob', age: 20, team: { id: 'y' } }],
    ['{{ users | max(attribute="age") | attr("name") }}', 'ann'],
    ['{{ "ab" | list }}', ['a', 'b']],
    ['{{ obj | list }}', ['b', 'a']],
    ['{{ [] | bool }}', false],
    ['{{ "x" | bool }}', true],
    // select / reject / selectattr / rejectattr
    ['{{ list | select("odd") | list }}', [3, 1]],
    ['{{ [0, 1, "", "a"] | select | list }}', [1, 'a']],
    ['{{ list | reject("odd") }}', [2]],
    ['{{ users | selectattr("age", "gt", 25) | map(attribute="name") | list }}', ['ann']],
    ['{{ users | rejectattr("age", "equalto", 30) | map(attribute="name") | first }}', 'bob'],
    ['{{ [{"ok": true}, {"ok": false}] | selectattr("ok") | length }}', 1],
    // kept nunjucks built-ins
    ['{{ -3 | abs }}', 3],
    ['{{ 2.567 | round(2) }}', 2.57],
    ['{{ list | sort }}', [1, 2, 3]],
    ['{{ list | sort(true) }}', [3, 2, 1]],
    ['{{ users | sort(attribute="age") | map(attribute="name") | join }}', 'bobann'],
    ['{{ list | reverse }}', [2, 1, 3]],
    [
      '{{ obj | dictsort }}',
      [
        ['a', 1],
        ['b', 2],
      ],
    ],
    ['{{ [1, 2, 3] | batch(2) }}', [[1, 2], [3]]],
    ['{{ [1, 2, 3] | slice(2) }}', [[1, 2], [3]]],
    ['{{ obj | dump }}', '{"b":2,"a":1}'],
    ['{{ {"q": "a b"} | urlencode }}', 'q=a%20b'],
    // string built-ins get str() of their input
    ['{{ padded | trim }}', 'hi'],
    ['{{ n | trim }}', '7'],
    ['{{ "hello world" | title }}', 'Hello World'],
    ['{{ "hello" | capitalize }}', 'Hello'],
    ['{{ html | escape }}', '&lt;b&gt;&amp;&lt;/b&gt;'],
    ['{{ html | striptags }}', '&'],
    ['{{ html | safe }}', '<b>&</b>'],
    ['{{ "one two" | wordcount }}', 2],
    ['{{ "abcdef" | truncate(3, true, "") }}', 'abc'],
    ['{{ yes | center(6) }}', ' True '],
  ])('%s -> %j', (template, expected) => {
    expect(render(template)).toEqual(expected);
  });

  it.each([
    ['{{ "{bad" | fromjson }}', /fromjson: invalid JSON/],
    ['{{ "@@@" | b64decode }}', /b64decode: invalid base64 input/],
    ['{{ "/w==" | b64decode }}', /not UTF-8/],
    ['{{ n | length }}', /length: a number has no length/],
    ['{{ n | first }}', /first: a number is not iterable/],
    ['{{ n | items }}', /items: expected a mapping/],
    ['{{ list | map("nope") }}', /unknown filter 'nope'/],
    ['{{ list | map }}', /unknown filter 'undefined'/],
    ['{{ list | select("nope") }}', /unknown test 'nope'/],
    ['{{ list | select("odd", x=1) }}', /does not accept keyword arguments/],
    ['{{ list | random }}', /unknown filter 'random'/],
    ['{{ missing | int }}', /'missing' is undefined/],
    ['{{ missing | float }}', /'missing' is undefined/],
    ['{{ missing | tojson }}', /'missing' is undefined/],
    ['{{ missing | first }}', /'missing' is undefined/],
    ['{{ missing | join(",") }}', /'missing' is undefined/],
    ['{{ missing | items }}', /'missing' is undefined/],
    ['{{ missing | sort }}', /'missing' is undefined/],
    ['{{ missing | attr("a") }}', /'missing' is undefined/],
  ])('%s fails with a TemplateError', (template, message) => {
    expect(() => render(template)).toThrow(TemplateError);
    expect(() => render(template)).toThrow(message);
  });

  it('serialises a value that cannot be JSON as a TemplateError', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => e.renderString('{{ c | tojson }}', { c: cyclic })).toThrow(/tojson: value is not serialisable/);
  });
});
