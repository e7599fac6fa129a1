import * as policy from './index';

describe('policy public API', () => {
  it('exports the functions the parser and the worker code against', () => {
    const functions = [
      'compileRetry',
      'compileRules',
      'compileSet',
      'outcomeScope',
      'responseBody',
      'evaluatePolicies',
      'nextRetryDelayMs',
      'mergeNextCall',
      'collectPage',
      'classifyError',
    ] as const;
    for (const name of functions) expect(typeof policy[name]).toBe('function');
  });

  it('exports the defaults', () => {
    expect(policy.DEFAULT_RETRY_ATTEMPTS).toBe(3);
    expect(policy.DEFAULT_CONTINUATION_MAX_CALLS).toBe(100);
    expect(policy.DEFAULT_UNIFIED_BACKOFF).toEqual({
      strategy: 'exponential',
      delaySeconds: 1,
      multiplier: 2,
      maxDelaySeconds: 60,
      jitter: true,
    });
    expect(policy.DEFAULT_RULE_BACKOFF).toEqual({ strategy: 'none', delaySeconds: 1, multiplier: 2, maxDelaySeconds: 60, jitter: false });
    expect(policy.POLICY_SET_BARE_SCOPE).toBe('ctx');
  });
});
