import { DEFAULT_TEMPLATE_LIMITS, ExpressionEngine, TemplateError, type TemplateLimits } from './index';

const engine = (limits: Partial<TemplateLimits> = {}) => new ExpressionEngine({ now: () => new Date(0), uuid: () => 'u' }, { limits });

function failure(e: ExpressionEngine, template: string, scope: Record<string, unknown> = {}): TemplateError {
  try {
    e.renderString(template, scope);
  } catch (error) {
    if (error instanceof TemplateError) return error;
    throw error;
  }
  throw new Error(`expected ${template} to fail`);
}

/** The issue 15 reproducer: 40 doublings of a 100,000-item list would reach V8's array limit, which aborts the process. */
const POISON = '{% set l = range(100000) %}{% for i in range(40) %}{% set l = l + l %}{% endfor %}{{ l|length }}';

describe('template limits', () => {
  it('fails the poison template with a budget error instead of growing the list', () => {
    const error = failure(engine(), POISON);
    expect(error.code).toBe('template_budget');
    expect(error.expression).toBe(POISON);
    expect(error.message).toContain('over budget: a list of 1600000 items is too long (limit 1000000, maxListLength)');
  });

  it('has defaults for every limit', () => {
    expect(engine().limits).toEqual(DEFAULT_TEMPLATE_LIMITS);
    expect(engine({ maxLoopIterations: 5 }).limits).toEqual({ ...DEFAULT_TEMPLATE_LIMITS, maxLoopIterations: 5 });
  });

  it('renders ordinary templates well inside the defaults', () => {
    const e = engine();
    expect(e.renderString('{% for i in range(100000) %}{% endfor %}done', {})).toBe('done');
    expect((e.renderString('{{ range(100000) | join(",") }}', {}) as string).length).toBe(588889);
    const rows = Array.from({ length: 5000 }, (_, id) => ({ id, name: `row ${id}` }));
    const sql = e.renderString(
      "INSERT INTO t VALUES {% for r in rows %}({{ r.id }}, '{{ r.name }}'){{ ',' if not loop.last }}{% endfor %}",
      { rows },
    );
    expect(sql).toMatch(/^INSERT INTO t VALUES \(0, 'row 0'\),.*\(4999, 'row 4999'\)$/);
    expect(e.renderString('{{ big }}', { big: Array.from({ length: 2_000_000 }, (_, i) => i) })).toHaveLength(2_000_000);
  });

  it.each<[string, Partial<TemplateLimits>, string, string]>([
    [
      'nested loop iterations',
      { maxLoopIterations: 99 },
      '{% for i in range(10) %}{% for j in range(10) %}{% endfor %}{% endfor %}',
      'more than 99 loop iterations (limit 99, maxLoopIterations)',
    ],
    ['range() size', { maxRangeSize: 10 }, '{{ range(11) }}', 'range() of 11 items is too large (limit 10, maxRangeSize)'],
    ['list concatenation', { maxListLength: 10 }, '{{ range(6) + range(5) }}', 'a list of 11 items is too long (limit 10, maxListLength)'],
    ['list repetition', { maxListLength: 10 }, '{{ [1, 2] * 6 }}', 'a list of 12 items is too long'],
    ['batch padding', { maxListLength: 10 }, '{{ [1] | batch(11, 0) }}', 'a list of 11 items is too long'],
    ['slice count', { maxListLength: 10 }, '{{ [1] | slice(11) }}', 'a list of 11 items is too long'],
    ['items of a mapping', { maxListLength: 1 }, '{{ {"a": 1, "b": 2} | items }}', 'a list of 2 items is too long'],
    [
      'string concatenation',
      { maxStringLength: 10 },
      '{{ "abcdef" ~ "ghijk" }}',
      'a string of 11 characters is too long (limit 10, maxStringLength)',
    ],
    ['string +', { maxStringLength: 10 }, '{{ "abcdef" + "ghijk" }}', 'a string of 11 characters is too long'],
    ['string repetition', { maxStringLength: 10 }, '{{ "ab" * 6 }}', 'a string of 12 characters is too long'],
    ['replace', { maxStringLength: 10 }, '{{ "aaaa" | replace("a", "xyz") }}', 'a string of 12 characters is too long'],
    ['str.replace', { maxStringLength: 10 }, '{{ "aaaa".replace("a", "xyz") }}', 'a string of 12 characters is too long'],
    ['join', { maxStringLength: 10 }, '{{ ["abcd", "efgh"] | join("---") }}', 'a string of 11 characters is too long'],
    ['str.join', { maxStringLength: 10 }, '{{ "---".join(["abcd", "efgh"]) }}', 'a string of 11 characters is too long'],
    ['center', { maxStringLength: 10 }, '{{ "x" | center(11) }}', 'a string of 11 characters is too long'],
    ['tojson', { maxStringLength: 100 }, '{{ (["x" * 50] * 3) | tojson }}', 'characters is too long (limit 100, maxStringLength)'],
    ['printing a list', { maxStringLength: 100 }, '{{ (["x" * 50] * 3) | string }}', 'characters is too long (limit 100, maxStringLength)'],
    [
      'output',
      { maxOutputLength: 50 },
      '{% for i in range(10) %}abcdef{% endfor %}',
      'the output of 54 characters is too long (limit 50, maxOutputLength)',
    ],
    [
      'output of a set block',
      { maxOutputLength: 50 },
      '{% set s %}{% for i in range(10) %}abcdef{% endfor %}{% endset %}',
      'the output of 54 characters',
    ],
    [
      'work of a loop copying a list',
      { maxWork: 100_000 },
      '{% set l = range(10000) %}{% for i in range(20) %}{% set c = l + [] %}{% endfor %}',
      'the template does too much work (limit 100000, maxWork)',
    ],
    ['work of comparing', { maxWork: 100_000 }, '{% set l = range(1000) %}{% for i in range(200) %}{{ 5000 in l }}{% endfor %}', 'maxWork'],
    ['work of a filter walking a list', { maxWork: 100_000 }, '{% for i in range(20) %}{{ big | sum }}{% endfor %}', 'maxWork'],
    [
      'work of a method walking a string',
      { maxWork: 100_000 },
      '{% for i in range(20) %}{{ text.upper() | length }}{% endfor %}',
      'maxWork',
    ],
  ])('bounds %s', (_what, limits, template, message) => {
    const error = failure(engine(limits), template, { big: Array.from({ length: 10_000 }, () => 1), text: 'x'.repeat(10_000) });
    expect(error.code).toBe('template_budget');
    expect(error.message).toContain(message);
  });

  it('charges a single-expression value as the caller will copy it: a list repeating a list a million times fails', () => {
    const e = engine({ maxWork: 1_000_000 });
    const error = failure(e, '{{ [[[1] * 1000] * 1000] * 1000 }}');
    expect(error.code).toBe('template_budget');
    expect(error.message).toContain('maxWork');
    expect(e.renderString('{{ [[[1] * 10] * 10] * 10 }}', {})).toHaveLength(10);
    expect(failure(engine(), '{{ [[["x" * 1000] * 1000] * 1000] | tojson }}').message).toContain('maxStringLength');
  });

  it('counts each render afresh, and a failed render leaves nothing behind', () => {
    const e = engine({ maxLoopIterations: 10 });
    const eight = '{% for i in range(8) %}{{ i }}{% endfor %}';
    expect(e.renderString(eight, {})).toBe('01234567');
    expect(e.renderString(eight, {})).toBe('01234567');
    expect(failure(e, '{% for i in range(11) %}{% endfor %}').code).toBe('template_budget');
    expect(e.renderString(eight, {})).toBe('01234567');
  });

  it('fails a deep value a template cannot print as a template error, not a crash', () => {
    const error = failure(engine(), '{% set d = [] %}{% for i in range(100000) %}{% set d = [d] %}{% endfor %}{{ d }}');
    expect(error).toBeInstanceOf(TemplateError);
  });
});
