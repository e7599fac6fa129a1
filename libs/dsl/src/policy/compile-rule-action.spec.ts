import { compileRuleAction, readStrategy } from './compile-rule-action';

type Reported = Array<[string, string]>;

function compile(raw: unknown): { compiled: ReturnType<typeof compileRuleAction>; reports: Reported } {
  const reports: Reported = [];
  const compiled = compileRuleAction(raw, 'r.then', (path, message) => reports.push([path, message]));
  return { compiled, reports };
}

describe('compileRuleAction', () => {
  it.each<[string, unknown, unknown]>([
    ['continue', { do: 'continue' }, { do: 'proceed' }],
    ['no do (continues)', {}, { do: 'proceed' }],
    ['break', { do: 'break' }, { do: 'break' }],
    ['fail', { do: 'fail' }, { do: 'fail' }],
    ['jump to', { do: 'jump', to: 'fetch_page' }, { do: 'jump', to: 'fetch_page' }],
    ['jump task', { do: 'jump', task: 't' }, { do: 'jump', to: 't' }],
    ['jump step', { do: 'jump', step: 's' }, { do: 'jump', to: 's' }],
    [
      'retry with max_attempts and backoff_multiplier spellings',
      { do: 'retry', max_attempts: 4, backoff: 'exponential', backoff_multiplier: 3 },
      {
        do: 'retry',
        maxAttempts: 4,
        backoff: { strategy: 'exponential', delaySeconds: 1, multiplier: 3, maxDelaySeconds: 60, jitter: false },
      },
    ],
  ])('compiles %s', (_name, raw, action) => {
    const { compiled, reports } = compile(raw);
    expect(reports).toEqual([]);
    expect(compiled).toEqual({ action, set: [] });
  });

  it('returns nothing for a jump with an empty target', () => {
    const { compiled, reports } = compile({ do: 'jump', to: ' ' });
    expect(compiled).toBeUndefined();
    expect(reports).toEqual([['r.then.to', 'must be a task name, got " "']]);
  });
});

describe('readStrategy', () => {
  it.each(['none', 'fixed', 'linear', 'exponential'] as const)('accepts %s', (name) => {
    expect(readStrategy(name, 'p', 'none', () => undefined)).toBe(name);
  });

  it('falls back when absent', () => {
    expect(readStrategy(undefined, 'p', 'exponential', () => undefined)).toBe('exponential');
  });

  it('reports an unknown name and compiles it as fixed, as the references wait `delay` for it', () => {
    const reports: Reported = [];
    expect(readStrategy(7, 'p.backoff', 'none', (path, message) => reports.push([path, message]))).toBe('fixed');
    expect(reports).toEqual([['p.backoff', 'unknown backoff 7; expected one of: none, fixed, linear, exponential']]);
  });
});
