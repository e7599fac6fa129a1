import type { Policy, SetOp } from '../model';
import { compileRules } from './compile-rules';
import { DEFAULT_RULE_BACKOFF } from './policy-defaults';

type Reported = Array<[string, string]>;
const PATH = 'workflow[3].tool.spec.policy';

function compile(raw: unknown): { policies: Policy[]; reports: Reported } {
  const reports: Reported = [];
  const policies = compileRules(raw, PATH, (path, message) => reports.push([path, message]));
  return { policies, reports };
}

const proceed = (when: Policy['when'], set: Policy['set'] = []): Policy => ({ when, on: 'any', action: { do: 'proceed' }, set });

describe('compileRules', () => {
  it('compiles retry_test/http_retry_status_code rules (retry on 5xx, fail on other errors, else continue)', () => {
    const { policies, reports } = compile({
      rules: [
        { when: '{{ output.http.status in [500, 502, 503] }}', then: { do: 'retry', attempts: 3, delay: 0.5, backoff: 'exponential' } },
        { when: "{{ output.status == 'error' }}", then: { do: 'fail' } },
        { else: { then: { do: 'continue' } } },
      ],
    });
    expect(reports).toEqual([]);
    expect(policies).toEqual([
      {
        when: '{{ output.http.status in [500, 502, 503] }}',
        on: 'any',
        action: { do: 'retry', maxAttempts: 3, backoff: { ...DEFAULT_RULE_BACKOFF, strategy: 'exponential', delaySeconds: 0.5 } },
        set: [],
      },
      { when: "{{ output.status == 'error' }}", on: 'any', action: { do: 'fail' }, set: [] },
      proceed('else'),
    ]);
  });

  it('defaults a rule retry to 3 attempts, delay 1.0, backoff none (no wait), no jitter, 60 s cap', () => {
    const { policies } = compile({ rules: [{ when: '{{ x }}', then: { do: 'retry' } }] });
    expect(policies[0]?.action).toEqual({
      do: 'retry',
      maxAttempts: 3,
      backoff: { strategy: 'none', delaySeconds: 1, multiplier: 2, maxDelaySeconds: 60, jitter: false },
    });
  });

  it('reads every rule retry key', () => {
    const { policies, reports } = compile({
      mode: 'exclusive',
      rules: [
        { when: '{{ x }}', then: { do: 'retry', attempts: 30, backoff: 'fixed', delay: 1.5, max_delay: 5, multiplier: 3, jitter: true } },
      ],
    });
    expect(reports).toEqual([]);
    expect(policies[0]?.action).toEqual({
      do: 'retry',
      maxAttempts: 30,
      backoff: { strategy: 'fixed', delaySeconds: 1.5, multiplier: 3, maxDelaySeconds: 5, jitter: true },
    });
  });

  describe('else with then, else without then and a when with continue compile alike', () => {
    const set = { 'ctx.loop_results': '{{ output.data.loop_results }}', 'iter.page': '{{ output.data.data }}' };
    const expectedSet: SetOp[] = [
      { scope: 'ctx', key: 'loop_results', value: '{{ output.data.loop_results }}' },
      { scope: 'iter', key: 'page', value: '{{ output.data.data }}' },
    ];
    it.each<[string, unknown, Policy['when']]>([
      ['else: {then: {do, set}}', { else: { then: { do: 'continue', set } } }, 'else'],
      ['else: {do, set} (heavy_loop_aggregation)', { else: { do: 'continue', set } }, 'else'],
      ['when: true (YAML boolean)', { when: true, then: { do: 'continue', set } }, true],
      ["when: '{{ true }}'", { when: '{{ true }}', then: { do: 'continue', set } }, '{{ true }}'],
      ['then without do continues', { when: true, then: { set } }, true],
    ])('%s', (_name, rule, when) => {
      const { policies, reports } = compile({ rules: [rule] });
      expect(reports).toEqual([]);
      expect(policies).toEqual([proceed(when, expectedSet)]);
    });
  });

  it('compiles jump (to, task and step aliases), break and fail', () => {
    const { policies, reports } = compile({
      rules: [
        {
          when: "{{ iter.has_more | string | lower == 'true' }}",
          then: { do: 'jump', to: 'fetch_page', set: { 'iter.page': '{{ (iter.page | int) + 1 }}' } },
        },
        { when: '{{ a }}', then: { do: 'jump', task: 'claim_batch' } },
        { when: '{{ b }}', then: { do: 'jump', step: 'prev' } },
        { when: '{{ (output.data.row_count | default(0) | int) == 0 }}', then: { do: 'break' } },
        { else: { then: { do: 'fail' } } },
      ],
    });
    expect(reports).toEqual([]);
    expect(policies.map((policy) => policy.action)).toEqual([
      { do: 'jump', to: 'fetch_page' },
      { do: 'jump', to: 'claim_batch' },
      { do: 'jump', to: 'prev' },
      { do: 'break' },
      { do: 'fail' },
    ]);
    expect(policies[0]?.set).toEqual([{ scope: 'iter', key: 'page', value: '{{ (iter.page | int) + 1 }}' }]);
  });

  it('accepts a bare list as the rules', () => {
    expect(compile([{ when: true, then: { do: 'continue' } }])).toEqual({ policies: [proceed(true)], reports: [] });
  });

  it('compiles an absent policy to nothing', () => {
    expect(compile(undefined)).toEqual({ policies: [], reports: [] });
    expect(compile(null)).toEqual({ policies: [], reports: [] });
  });

  it('gives a bare key of a policy set the ctx scope', () => {
    const { policies } = compile([{ else: { then: { do: 'continue', set: { offset: 10 } } } }]);
    expect(policies[0]?.set).toEqual([{ scope: 'ctx', key: 'offset', value: 10 }]);
  });

  describe('reports bad values with a precise path', () => {
    it.each<[string, unknown, Array<[string, RegExp]>]>([
      ['a policy that is a string', 'retry', [[PATH, /rules must be a list/]]],
      ['rules that are not a list', { rules: { when: true } }, [[`${PATH}.rules`, /rules must be a list/]]],
      ['a missing rules key', { mode: 'exclusive' }, [[`${PATH}.rules`, /rules must be a list/]]],
      ['an inclusive mode', { mode: 'inclusive', rules: [] }, [[`${PATH}.mode`, /must be `exclusive`/]]],
      ['an unknown policy key', { rules: [], rule: [] }, [[`${PATH}.rule`, /unknown key `rule` in a policy/]]],
      ['a rule that is not a mapping', { rules: ['retry'] }, [[`${PATH}.rules[0]`, /must be a mapping/]]],
      ['a rule without when', { rules: [{ then: { do: 'fail' } }] }, [[`${PATH}.rules[0].when`, /needs `when/]]],
      ['a rule without then', { rules: [{ when: '{{ x }}' }] }, [[`${PATH}.rules[0].then`, /needs `then/]]],
      [
        'a numeric when',
        { rules: [{ when: 3, then: { do: 'fail' } }] },
        [[`${PATH}.rules[0].when`, /template string or a boolean, got 3/]],
      ],
      ['a list when', { rules: [{ when: ['a'], then: { do: 'fail' } }] }, [[`${PATH}.rules[0].when`, /got a list/]]],
      [
        'an unknown do',
        { rules: [{ when: true, then: { do: 'skip' } }] },
        [[`${PATH}.rules[0].then.do`, /unknown action "skip"; expected one of: continue, retry, jump, break, fail/]],
      ],
      ['a non-string do', { rules: [{ when: true, then: { do: 3 } }] }, [[`${PATH}.rules[0].then.do`, /unknown action 3/]]],
      ['a then that is a string', { rules: [{ when: true, then: 'continue' }] }, [[`${PATH}.rules[0].then`, /must be a mapping/]]],
      [
        'negative attempts',
        { rules: [{ when: true, then: { do: 'retry', attempts: -1 } }] },
        [[`${PATH}.rules[0].then.attempts`, /at least 1, got -1/]],
      ],
      [
        'a string delay',
        { rules: [{ when: true, then: { do: 'retry', delay: '1s' } }] },
        [[`${PATH}.rules[0].then.delay`, /must be a number, got "1s"/]],
      ],
      ['a negative delay', { rules: [{ when: true, then: { do: 'retry', delay: -1 } }] }, [[`${PATH}.rules[0].then.delay`, /at least 0/]]],
      [
        'an unknown backoff',
        { rules: [{ when: true, then: { do: 'retry', backoff: 'expo' } }] },
        [[`${PATH}.rules[0].then.backoff`, /unknown backoff "expo"; expected one of: none, fixed, linear, exponential/]],
      ],
      [
        'a retry key on continue',
        { rules: [{ when: true, then: { do: 'continue', attempts: 3 } }] },
        [[`${PATH}.rules[0].then.attempts`, /unknown key `attempts` in a `do: continue` action/]],
      ],
      [
        'an unknown then key',
        { rules: [{ when: true, then: { do: 'retry', wait: 3 } }] },
        [[`${PATH}.rules[0].then.wait`, /unknown key `wait`/]],
      ],
      ['a jump without to', { rules: [{ when: true, then: { do: 'jump' } }] }, [[`${PATH}.rules[0].then.to`, /needs `to: <task name>`/]]],
      [
        'a jump to a number',
        { rules: [{ when: true, then: { do: 'jump', to: 3 } }] },
        [[`${PATH}.rules[0].then.to`, /must be a task name/]],
      ],
      [
        'when beside else',
        { rules: [{ when: true, else: { then: { do: 'continue' } } }] },
        [[`${PATH}.rules[0].when`, /unknown key `when` in an `else` rule/]],
      ],
      ['an else that is a string', { rules: [{ else: 'continue' }] }, [[`${PATH}.rules[0].else`, /must be a mapping/]]],
      [
        'an unknown key beside else.then',
        { rules: [{ else: { then: { do: 'continue' }, set: {} } }] },
        [[`${PATH}.rules[0].else.set`, /unknown key `set` in `else`/]],
      ],
      [
        'an unknown key beside then',
        { rules: [{ when: true, then: { do: 'fail' }, do: 'x' }] },
        [[`${PATH}.rules[0].do`, /unknown key `do` in a rule/]],
      ],
      [
        'a bad set in then',
        { rules: [{ else: { then: { do: 'continue', set: ['ctx.a'] } } }] },
        [[`${PATH}.rules[0].else.then.set`, /set must be a mapping/]],
      ],
    ])('%s', (_name, raw, expected) => {
      const { reports } = compile(raw);
      expect(reports).toHaveLength(expected.length);
      expected.forEach(([path, message], index) => {
        expect(reports[index]?.[0]).toBe(path);
        expect(reports[index]?.[1]).toMatch(message);
      });
    });

    it('drops the bad rules and keeps the good ones', () => {
      const { policies } = compile({
        rules: [{ when: 3, then: { do: 'fail' } }, { when: true, then: { do: 'skip' } }, { else: { then: { do: 'continue' } } }],
      });
      expect(policies).toEqual([proceed('else')]);
    });
  });
});
