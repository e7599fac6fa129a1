import { ExpressionEngine, holdsTemplate, isTemplate, TemplateError } from './index';

const clock = () => new Date('2024-05-06T07:08:09.010Z');
let ids = 0;
const engine = (cacheSize?: number) =>
  new ExpressionEngine({ now: clock, uuid: () => `id-${++ids}` }, cacheSize === undefined ? undefined : { cacheSize });

const scope = {
  count: 3,
  ratio: 0.5,
  name: 'ada',
  digits: '42',
  flag: true,
  off: false,
  nothing: null,
  rows: [{ id: 1 }, { id: 2 }],
  config: { retries: 2, nested: { deep: 'yes' } },
  empty: [],
  workload: { limit: 10 },
};

describe('ExpressionEngine.renderString', () => {
  const e = engine();

  it.each([
    ['{{ count }}', 3],
    ['{{ ratio }}', 0.5],
    ['{{ flag }}', true],
    ['{{ off }}', false],
    ['{{ nothing }}', null],
    ['{{ missing }}', null],
    ['{{ name }}', 'ada'],
    ['{{ digits }}', '42'],
    ['{{ rows | length }}', 2],
    ['{{ count + 1 }}', 4],
    ['{{ [count, name] }}', [3, 'ada']],
    ['{{ {"a": count} }}', { a: 3 }],
    ['  {{ count }}\n', 3],
    ['{{- count -}}', 3],
    ['{# note #} {{ name }} ', 'ada'],
  ])('renders the sole expression %j to its native value', (template, expected) => {
    expect(e.renderString(template, scope)).toEqual(expected);
  });

  it('returns the scope object itself for a sole reference', () => {
    expect(e.renderString('{{ config }}', scope)).toBe(scope.config);
    expect(e.renderString('{{ rows }}', scope)).toBe(scope.rows);
  });

  it.each([
    ['n={{ count }}', 'n=3'],
    ['{{ count }}{{ count }}', '33'],
    ['{{ digits }}!', '42!'],
    ['{{ flag }}/{{ off }}/{{ nothing }}/{{ missing }}', 'True/False/None/'],
    ['{{ config }}', undefined],
    ['{{ rows }} rows', "[{'id': 1}, {'id': 2}] rows"],
    ['{{ ratio }} {{ 1.0 }} {{ 2.5 if false else 7 }}', '0.5 1 7'],
    ['{% if flag %}on{% else %}off{% endif %}', 'on'],
    ['{% raw %}{{ count }}{% endraw %}', '{{ count }}'],
    ['{# note #}{{ name }}.', 'ada.'],
  ])('renders mixed text %j to a string', (template, expected) => {
    const out = e.renderString(template, scope);
    if (expected === undefined) expect(out).toBe(scope.config);
    else expect(out).toBe(expected);
  });

  it('does not JSON-parse text output', () => {
    expect(e.renderString('{{ count }}{{ "" }}', scope)).toBe('3');
    expect(e.renderString('[{{ count }}]', scope)).toBe('[3]');
  });

  it('returns strings without template syntax and non-strings as they are', () => {
    expect(e.renderString('plain {text}', scope)).toBe('plain {text}');
    expect(e.renderString(42 as unknown as string, scope)).toBe(42);
  });

  it('calls now() and uuid() from the injected sources', () => {
    expect(e.renderString('{{ now() }}', {})).toBe('2024-05-06T07:08:09.010Z');
    const first = e.renderString('{{ uuid() }}', {});
    const second = e.renderString('{{ uuid() }}', {});
    expect(first).toMatch(/^id-\d+$/);
    expect(second).not.toBe(first);
  });

  it('keeps {% set %} variables local to one render', () => {
    expect(e.renderString('{% set count = 10 %}{{ count }}', scope)).toBe('10');
    expect(e.renderString('{{ count }}', scope)).toBe(3);
    expect(scope.count).toBe(3);
  });
});

describe('ExpressionEngine.renderValue', () => {
  const e = engine();

  it('renders every string in nested objects and arrays, leaving keys alone', () => {
    const input = {
      '{{ name }}': '{{ count }}',
      list: ['{{ flag }}', 'x-{{ name }}', 7, null, { inner: '{{ rows[1].id }}' }],
      plain: 'no template',
      num: 1,
    };
    expect(e.renderValue(input, scope)).toEqual({
      '{{ name }}': 3,
      list: [true, 'x-ada', 7, null, { inner: 2 }],
      plain: 'no template',
      num: 1,
    });
  });

  it('keeps a "__proto__" key as data', () => {
    const input: unknown = JSON.parse('{"__proto__": "{{ name }}"}');
    const out = e.renderValue(input, scope) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('ada');
  });

  it('knows whether a value holds a template anywhere, keys aside', () => {
    expect(holdsTemplate({ url: 'http://x', params: [1, { q: 'plain' }] })).toBe(false);
    expect(holdsTemplate({ '{{ key }}': 1 })).toBe(false);
    expect(holdsTemplate({ url: 'http://x', params: [1, { q: '{{ item }}' }] })).toBe(true);
    expect(holdsTemplate({ when: '{% if a %}1{% endif %}' })).toBe(true);
    expect(holdsTemplate('{{ a }}')).toBe(true);
    expect(holdsTemplate(5)).toBe(false);
  });

  it('returns non-plain values unchanged', () => {
    const date = new Date(0);
    expect(e.renderValue(date, scope)).toBe(date);
    expect(e.renderValue(5, scope)).toBe(5);
  });
});

describe('ExpressionEngine.evaluateCondition', () => {
  const e = engine();

  it.each([
    [undefined, true],
    [true, true],
    [false, false],
    ['', false],
    ['false', false],
    ['False', false],
    ['0', false],
    ['none', false],
    ['None', false],
    ['null', false],
    ['yes', true],
    ['{{ flag }}', true],
    ['{{ off }}', false],
    ['{{ nothing }}', false],
    ['{{ missing }}', false],
    ['{{ config.nope.path }}', false],
    ['{{ count }}', true],
    ['{{ count - 3 }}', false],
    ['{{ empty }}', false],
    ['{{ rows }}', true],
    ['{{ {} }}', false],
    ['{{ "" }}', false],
    ['{{ "False" }}', false],
    ['{{ "none" }}', false],
    ['{{ name }}', true],
    ['{{ flag }} ', true],
    ['{{ off | string }}', false],
    ['{{ flag | string | lower }}', true],
    ['result: {{ off }}', true],
    ['{{ off }}\n', false],
    ['{% if flag %}False{% endif %}', false],
    ['{% if flag %} 0 {% endif %}', false],
  ])('judges %j as %s', (when, expected) => {
    expect(e.evaluateCondition(when, scope)).toBe(expected);
  });
});

describe('errors', () => {
  const e = engine();

  const errorOf = (template: string, s: Record<string, unknown> = scope): TemplateError => {
    try {
      e.renderString(template, s);
    } catch (error) {
      if (error instanceof TemplateError) return error;
      throw error;
    }
    throw new Error(`expected ${template} to fail`);
  };

  it('reports a parse error with the template and its position', () => {
    const error = errorOf('{{ foo( }}');
    expect(error).toBeInstanceOf(TemplateError);
    expect(error.code).toBe('template_error');
    expect(error.expression).toBe('{{ foo( }}');
    expect([error.line, error.column]).toEqual([1, 9]);
    expect(error.message).toBe('template error in "{{ foo( }}": unexpected token: }} (line 1, column 9)');
  });

  it.each([
    ['{{ x | }}', 1, 8, /expected symbol/],
    ['line one\n  {{ a b }}', 2, 8, /expected variable end/],
    ['{{ x | nope }}', 1, 8, /unknown filter 'nope'/],
    ['{{ x is nope }}', 1, 9, /unknown test 'nope'/],
    ['{{ nope() }}', 1, 4, /unknown function 'nope'/],
    ['{{ name.nope() }}', 1, 4, /'name' is undefined/],
    ['{{ x.nope() }}', 1, 10, /x.nope is undefined and cannot be called/],
    ['{{ count() }}', 1, 4, /unknown function 'count'/],
    ['{{ (x)(1) }}', 1, 7, /x is not callable/],
    ['{{ (count)(1) }}', 1, 11, /count is undefined and cannot be called/],
    ['x\n{{ "{" | fromjson }}', 2, 10, /fromjson: invalid JSON/],
    ['{{ [1, 2 }}', 1, 4, /expected comma after expression/],
    ['{{ x[::0] }}', 1, 1, /slice step cannot be zero/],
  ])('%j fails at line %i column %i', (template, line, column, message) => {
    const error = errorOf(template, { x: [1] });
    expect(error.line).toBe(line);
    if (column !== 1) expect(error.column).toBe(column);
    expect(error.message).toMatch(message);
  });

  it('reports errors without a known position plainly', () => {
    const error = errorOf("{{ 'unterminated }}");
    expect(error.line).toBeUndefined();
    expect(error.message).toBe('template error in "{{ \'unterminated }}": expected variable end');
  });

  it('shortens long templates in the message but keeps them whole on the error', () => {
    const template = `{{ ${'a + '.repeat(100)} }}`;
    const error = errorOf(template);
    expect(error.expression).toBe(template);
    expect(error.message.length).toBeLessThan(300);
  });

  it('turns a failure in a condition into a TemplateError too', () => {
    expect(() => e.evaluateCondition('{{ rows | fromjson }} {{ "x" | fromjson }}', scope)).toThrow(TemplateError);
  });
});

describe('checkSyntax', () => {
  const e = engine();

  it('accepts valid templates and non-templates', () => {
    expect(e.checkSyntax('{{ a.b | default(0) | int + 1 }}')).toEqual([]);
    expect(e.checkSyntax('{% if x %}{{ y }}{% endif %}')).toEqual([]);
    expect(e.checkSyntax('no template here')).toEqual([]);
  });

  it('reports every static problem with its position, without rendering', () => {
    expect(e.checkSyntax('{{ a | nope }}\n{{ b.constructor }}')).toEqual([
      { message: "unknown filter 'nope'", line: 1, column: 8 },
      { message: "access to 'constructor' is not allowed", line: 2, column: 6 },
    ]);
    expect(e.checkSyntax('{{ foo( }}')).toEqual([{ message: 'unexpected token: }}', line: 1, column: 9 }]);
    expect(e.checkSyntax('{% if x %}')).toEqual([
      { message: 'expected elif, else, or endif, got end of file', line: undefined, column: undefined },
    ]);
  });

  it('does not call injected sources', () => {
    const uuid = jest.fn(() => 'x');
    const checking = new ExpressionEngine({ now: clock, uuid });
    expect(checking.checkSyntax('{{ uuid() }}')).toEqual([]);
    expect(uuid).not.toHaveBeenCalled();
  });
});

describe('compiled template cache', () => {
  it('compiles a template once and reuses it', () => {
    const e = engine();
    e.renderString('{{ count + 1 }}', scope);
    e.renderString('{{ count + 1 }}', { count: 9 });
    expect(e.renderString('{{ count + 1 }}', { count: 1 })).toBe(2);
    expect(e.cacheStats()).toEqual({ size: 1, capacity: 1000, hits: 2, misses: 1 });
  });

  it('drops the least recently used template past its capacity', () => {
    const e = engine(2);
    e.renderString('{{ 1 }}', {});
    e.renderString('{{ 2 }}', {});
    e.renderString('{{ 1 }}', {});
    e.renderString('{{ 3 }}', {});
    expect(e.cacheStats().size).toBe(2);
    e.renderString('{{ 1 }}', {});
    expect(e.cacheStats().hits).toBe(2);
    e.renderString('{{ 2 }}', {});
    expect(e.cacheStats().misses).toBe(4);
  });

  it('does not cache templates that fail to compile', () => {
    const e = engine();
    expect(() => e.renderString('{{ ( }}', {})).toThrow(TemplateError);
    expect(e.cacheStats().size).toBe(0);
  });

  it('does not touch the cache for strings without template syntax', () => {
    const e = engine();
    e.renderString('plain', {});
    expect(e.cacheStats()).toEqual({ size: 0, capacity: 1000, hits: 0, misses: 0 });
  });
});

describe('isTemplate', () => {
  it.each([
    ['{{ x }}', true],
    ['a {% if x %}b{% endif %}', true],
    ['plain', false],
    ['{ x }', false],
    ['{# comment #}', false],
  ])('%j -> %s', (value, expected) => {
    expect(isTemplate(value)).toBe(expected);
  });
});
