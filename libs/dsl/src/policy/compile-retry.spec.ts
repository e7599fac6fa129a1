import type { Policy, Sink } from '../model';
import { compileRetry } from './compile-retry';
import { DEFAULT_UNIFIED_BACKOFF } from './policy-defaults';

type Reported = Array<[string, string]>;

function compile(raw: unknown, compileSink = sinkTask): { policies: Policy[]; reports: Reported } {
  const reports: Reported = [];
  const policies = compileRetry(raw, 'workflow[2].retry', (path, message) => reports.push([path, message]), compileSink);
  return { policies, reports };
}

const sinkTask = (raw: unknown, path: string): Sink | undefined =>
  raw === 'bad'
    ? undefined
    : { kind: 'task', task: { name: path, kind: 'postgres', config: { table: 'raw' }, input: {}, policies: [], set: [] } };

const WHEN = '{{ error.status in [429, 500, 502, 503] }}';
const HAS_MORE = '{{ response.paging.hasMore }}';

const errorPolicy = (when: Policy['when'], maxAttempts: number, backoff = DEFAULT_UNIFIED_BACKOFF): Policy => ({
  when,
  on: 'error',
  action: { do: 'retry', maxAttempts, backoff: { ...backoff } },
  set: [],
});

describe('compileRetry', () => {
  describe('every error-side spelling compiles to the same model', () => {
    it.each<[string, unknown]>([
      ['5.1 list of {when, then}', [{ when: WHEN, then: { max_attempts: 5 } }]],
      [
        '5.1 list with every then key at its default',
        [{ when: WHEN, then: { max_attempts: 5, initial_delay: 1.0, backoff_multiplier: 2.0, max_delay: 60, jitter: true } }],
      ],
      ['a single {when, then}', { when: WHEN, then: { max_attempts: 5 } }],
      ['the single legacy {when, max_attempts}', { when: WHEN, max_attempts: 5 }],
      ['legacy retry_when', { retry_when: WHEN, max_attempts: 5 }],
      ['legacy {on_error: {when, max_attempts}}', { on_error: { when: WHEN, max_attempts: 5 } }],
      ['rule spellings inside then (attempts, delay)', [{ when: WHEN, then: { attempts: 5, delay: 1 } }]],
    ])('%s', (_name, raw) => {
      const { policies, reports } = compile(raw);
      expect(reports).toEqual([]);
      expect(policies).toEqual([errorPolicy(WHEN, 5)]);
    });

    it.each<[string, unknown, number]>([
      ['retry: true', true, 3],
      ['retry: N', 4, 4],
      ['retry: 1 (one run, no retry)', 1, 1],
      ['a list entry without when', [{ then: { max_attempts: 4 } }], 4],
      ['on_error: true', { on_error: true }, 3],
      ['on_error: N', { on_error: 4 }, 4],
      ['on_error without when', { on_error: { max_attempts: 4 } }, 4],
      ['the single legacy form without when', { max_attempts: 4 }, 4],
    ])('%s matches every error', (_name, raw, attempts) => {
      const { policies, reports } = compile(raw);
      expect(reports).toEqual([]);
      expect(policies).toEqual([errorPolicy(true, attempts)]);
    });
  });

  it.each<[string, unknown]>([
    ['absent', undefined],
    ['null', null],
    ['false', false],
    ['0', 0],
    ['an empty list', []],
    ['on_error: false', { on_error: false }],
  ])('%s compiles to no policy', (_name, raw) => {
    expect(compile(raw)).toEqual({ policies: [], reports: [] });
  });

  it('reads every error-side then key', () => {
    const { policies, reports } = compile([
      {
        when: WHEN,
        then: {
          max_attempts: 6,
          initial_delay: 0.5,
          backoff_multiplier: 3,
          max_delay: 10,
          jitter: false,
          backoff: 'linear',
          set: { 'ctx.retried': true },
        },
      },
    ]);
    expect(reports).toEqual([]);
    expect(policies).toEqual([
      {
        when: WHEN,
        on: 'error',
        action: {
          do: 'retry',
          maxAttempts: 6,
          backoff: { strategy: 'linear', delaySeconds: 0.5, multiplier: 3, maxDelaySeconds: 10, jitter: false },
        },
        set: [{ scope: 'ctx', key: 'retried', value: true }],
      },
    ]);
  });

  describe('every success-side spelling compiles to the same model', () => {
    const nextCall = { params: { page: '{{ response.paging.page + 1 }}' } };
    const collect = { strategy: 'append', path: 'data', into: 'pages' };
    const expected: Policy = {
      when: HAS_MORE,
      on: 'success',
      action: {
        do: 'continue',
        maxAttempts: 10,
        nextCall,
        collect: { strategy: 'append', path: 'data', into: 'pages' },
        perIteration: { sink: sinkTask('ok', 'workflow[2].retry[0].then.per_iteration.sink')! },
      },
      set: [],
    };
    it.each<[string, unknown, string]>([
      [
        '5.1 list',
        [{ when: HAS_MORE, then: { max_attempts: 10, next_call: nextCall, collect, per_iteration: { sink: {} } } }],
        'workflow[2].retry[0].then.per_iteration.sink',
      ],
      [
        'a single {when, then}',
        { when: HAS_MORE, then: { max_attempts: 10, next_call: nextCall, collect, per_iteration: { sink: {} } } },
        'workflow[2].retry.then.per_iteration.sink',
      ],
      [
        'flat {when, next_call}',
        { when: HAS_MORE, max_attempts: 10, next_call: nextCall, collect, per_iteration: { sink: {} } },
        'workflow[2].retry.per_iteration.sink',
      ],
      [
        'legacy on_success {while}',
        { on_success: { while: HAS_MORE, max_attempts: 10, next_call: nextCall, collect, per_iteration: { sink: {} } } },
        'workflow[2].retry.on_success.per_iteration.sink',
      ],
      [
        'legacy on_success max_iterations and a direct sink',
        { on_success: { while: HAS_MORE, max_iterations: 10, next_call: nextCall, collect, sink: {} } },
        'workflow[2].retry.on_success.sink',
      ],
    ])('%s', (_name, raw, sinkPath) => {
      const { policies, reports } = compile(raw);
      expect(reports).toEqual([]);
      expect(policies).toEqual([{ ...expected, action: { ...expected.action, perIteration: { sink: sinkTask('ok', sinkPath)! } } }]);
    });
  });

  it('compiles a combined error + success list in order, with the page cap defaulting to 100', () => {
    const { policies, reports } = compile([
      { when: WHEN, then: { max_attempts: 5 } },
      { when: HAS_MORE, then: { next_call: { url: '{{ response.links.next }}' } } },
    ]);
    expect(reports).toEqual([]);
    expect(policies).toEqual([
      errorPolicy(WHEN, 5),
      {
        when: HAS_MORE,
        on: 'success',
        action: { do: 'continue', maxAttempts: 100, nextCall: { url: '{{ response.links.next }}' } },
        set: [],
      },
    ]);
  });

  it('compiles {on_error, on_success} to the error policy then the continuation', () => {
    const { policies, reports } = compile({
      on_error: { when: '{{ error.status == 429 }}', max_attempts: 3 },
      on_success: { while: '{{ response.has_more }}', next_call: { params: { page: 2 } }, collect: { strategy: 'replace' } },
    });
    expect(reports).toEqual([]);
    expect(policies).toEqual([
      errorPolicy('{{ error.status == 429 }}', 3),
      {
        when: '{{ response.has_more }}',
        on: 'success',
        action: { do: 'continue', maxAttempts: 100, nextCall: { params: { page: 2 } }, collect: { strategy: 'replace' } },
        set: [],
      },
    ]);
  });

  it('compiles a then with do: as a rule action matching any outcome', () => {
    const { policies, reports } = compile([
      { when: '{{ output.status == "error" }}', then: { do: 'fail' } },
      { when: true, then: { do: 'jump', to: 'fetch' } },
    ]);
    expect(reports).toEqual([]);
    expect(policies).toEqual([
      { when: '{{ output.status == "error" }}', on: 'any', action: { do: 'fail' }, set: [] },
      { when: true, on: 'any', action: { do: 'jump', to: 'fetch' }, set: [] },
    ]);
  });

  it('compiles legacy stop_when to a fail policy before the retry', () => {
    const { policies, reports } = compile({ retry_when: WHEN, stop_when: '{{ error.status == 404 }}', max_attempts: 4 });
    expect(reports).toEqual([]);
    expect(policies).toEqual([{ when: '{{ error.status == 404 }}', on: 'error', action: { do: 'fail' }, set: [] }, errorPolicy(WHEN, 4)]);
  });

  describe('reports bad values with a precise path', () => {
    it.each<[string, unknown, Array<[string, RegExp]>]>([
      ['a negative number', -1, [['workflow[2].retry', /whole number >= 0, got -1/]]],
      ['a fractional number', 2.5, [['workflow[2].retry', /whole number/]]],
      ['a string', 'yes', [['workflow[2].retry', /retry must be true, a number/]]],
      ['a list entry that is not a mapping', [3], [['workflow[2].retry[0]', /must be a mapping/]]],
      [
        'negative max_attempts',
        [{ when: WHEN, then: { max_attempts: -2 } }],
        [['workflow[2].retry[0].then.max_attempts', /at least 1, got -2/]],
      ],
      ['max_attempts 0', [{ when: WHEN, then: { max_attempts: 0 } }], [['workflow[2].retry[0].then.max_attempts', /at least 1/]]],
      [
        'fractional max_attempts',
        [{ when: WHEN, then: { max_attempts: 1.5 } }],
        [['workflow[2].retry[0].then.max_attempts', /whole number/]],
      ],
      [
        'a string initial_delay',
        [{ when: WHEN, then: { initial_delay: 'soon' } }],
        [['workflow[2].retry[0].then.initial_delay', /must be a number, got "soon"/]],
      ],
      ['a negative max_delay', [{ when: WHEN, then: { max_delay: -1 } }], [['workflow[2].retry[0].then.max_delay', /at least 0/]]],
      [
        'a zero multiplier',
        [{ when: WHEN, then: { backoff_multiplier: 0 } }],
        [['workflow[2].retry[0].then.backoff_multiplier', /greater than 0/]],
      ],
      ['a non-boolean jitter', [{ when: WHEN, then: { jitter: 'yes' } }], [['workflow[2].retry[0].then.jitter', /true or false/]]],
      [
        'an unknown strategy',
        [{ when: WHEN, then: { backoff: 'fibonacci' } }],
        [['workflow[2].retry[0].then.backoff', /unknown backoff "fibonacci"/]],
      ],
      [
        'an unknown key in then',
        [{ when: WHEN, then: { max_attempts: 3, retries: 2 } }],
        [['workflow[2].retry[0].then.retries', /unknown key `retries`/]],
      ],
      [
        'an unknown key beside then',
        [{ when: WHEN, then: { max_attempts: 3 }, on: 'error' }],
        [['workflow[2].retry[0].on', /unknown key `on`/]],
      ],
      ['a numeric when', [{ when: 1, then: { max_attempts: 3 } }], [['workflow[2].retry[0].when', /template string or a boolean, got 1/]]],
      ['an empty when', [{ when: ' ', then: { max_attempts: 3 } }], [['workflow[2].retry[0].when', /template string or a boolean/]]],
      ['a then that is not a mapping', [{ when: WHEN, then: 3 }], [['workflow[2].retry[0].then', /must be a mapping/]]],
      [
        'error and success keys mixed',
        [{ when: WHEN, then: { initial_delay: 1, next_call: {} } }],
        [['workflow[2].retry[0].then', /mixes error-side keys \(initial_delay\) with success-side keys \(next_call\)/]],
      ],
      ['an unknown do', [{ when: WHEN, then: { do: 'explode' } }], [['workflow[2].retry[0].then.do', /unknown action "explode"/]]],
      ['a legacy key typo', { when: WHEN, max_attempt: 3 }, [['workflow[2].retry.max_attempt', /unknown key `max_attempt`/]]],
      ['on_error of the wrong type', { on_error: 'always' }, [['workflow[2].retry.on_error', /must be a mapping/]]],
      ['on_error with a negative number', { on_error: -3 }, [['workflow[2].retry.on_error', /whole number/]]],
      ['on_success of the wrong type', { on_success: true }, [['workflow[2].retry.on_success', /must be a mapping/]]],
      ['on_success without while', { on_success: { next_call: {} } }, [['workflow[2].retry.on_success.while', /needs `while/]]],
      ['an unknown key beside on_error', { on_error: true, on_timeout: true }, [['workflow[2].retry.on_timeout', /unknown key/]]],
      [
        'on_error with success keys',
        { on_error: { next_call: {} } },
        [['workflow[2].retry.on_error.next_call', /unknown key `next_call` in an error-side retry/]],
      ],
      [
        'stop_when on a success policy',
        { when: HAS_MORE, stop_when: '{{ x }}', next_call: {} },
        [['workflow[2].retry.stop_when', /only applies to error retries/]],
      ],
      [
        'on_success with stop_when',
        { on_success: { while: HAS_MORE, stop_when: '{{ x }}' } },
        [['workflow[2].retry.on_success.stop_when', /unknown key/]],
      ],
      ['a bad stop_when', { when: WHEN, stop_when: 5 }, [['workflow[2].retry.stop_when', /template string or a boolean/]]],
      ['a bad flat when', { when: [], max_attempts: 2 }, [['workflow[2].retry.when', /template string or a boolean/]]],
    ])('%s', (_name, raw, expected) => {
      const { reports } = compile(raw);
      expect(reports).toHaveLength(expected.length);
      expected.forEach(([path, message], index) => {
        expect(reports[index]?.[0]).toBe(path);
        expect(reports[index]?.[1]).toMatch(message);
      });
    });

    it('keeps a policy with its default when one field is bad', () => {
      const { policies } = compile([{ when: WHEN, then: { max_attempts: -2, initial_delay: 'x' } }]);
      expect(policies).toEqual([errorPolicy(WHEN, 3)]);
    });

    it('drops a policy whose when is bad', () => {
      expect(compile([{ when: 7, then: { max_attempts: 2 } }]).policies).toEqual([]);
      expect(compile([{ when: 7, then: { do: 'fail' } }]).policies).toEqual([]);
    });

    it('drops a rule action it cannot understand', () => {
      expect(compile([{ when: WHEN, then: { do: 'explode' } }]).policies).toEqual([]);
    });
  });
});
