import { httpCallError, type Policy, type RetryAction } from '../model';
import { compileRetry } from './compile-retry';
import { compileRules } from './compile-rules';
import { evaluatePolicies, type EvaluateOptions } from './evaluate-policies';
import type { CallOutcome } from './outcome-scope';

/** Reads a dotted path from the scope, as a template would. */
function read(scope: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => {
    if (value === null || value === undefined) return undefined;
    return (value as Record<string, unknown>)[key];
  }, scope);
}

/** The conditions these tests use, evaluated by hand (the template engine is not a dependency here). */
const CONDITIONS: Record<string, (scope: Record<string, unknown>) => boolean> = {
  '{{ output.status == "error" }}': (s) => read(s, 'output.status') === 'error',
  '{{ output.error.retryable }}': (s) => read(s, 'output.error.retryable') === true,
  '{{ output.http.status in [500, 502, 503] }}': (s) => [500, 502, 503].includes(read(s, 'output.http.status') as number),
  '{{ output.error.status in [500, 502, 503] }}': (s) => [500, 502, 503].includes(read(s, 'output.error.status') as number),
  "{{ output.error.kind == 'rate_limit' }}": (s) => read(s, 'output.error.kind') === 'rate_limit',
  '{{ error.status == 429 }}': (s) => read(s, 'error.status') === 429,
  '{{ response.paging.hasMore }}': (s) => read(s, 'response.paging.hasMore') === true,
  '{{ ctx.stop }}': (s) => read(s, 'ctx.stop') === true,
  '{{ _attempt > 1 }}': (s) => (s._attempt as number) > 1,
};

function options(over: Partial<EvaluateOptions> = {}): EvaluateOptions & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    evaluateWhen: (when, scope) => {
      if (typeof when === 'boolean') throw new Error('booleans are decided without the template engine');
      seen.push(when);
      const condition = CONDITIONS[when];
      if (condition === undefined) throw new Error(`unknown condition ${when}`);
      return condition(scope);
    },
    random: () => 0.5,
    scope: { ctx: { stop: false } },
    ...over,
  };
}

const ok = (data: unknown = { id: 1 }, attempt = 1): CallOutcome => ({ status: 'ok', data, attempt, durationMs: 5 });
const httpOk = (body: unknown, attempt = 1): CallOutcome => ({
  status: 'ok',
  data: { status_code: 200, headers: {}, data: body, body },
  http: { status: 200, headers: {} },
  attempt,
  durationMs: 5,
});
const httpError = (status: number, attempt = 1, retryAfterMs?: number): CallOutcome => ({
  status: 'error',
  error: httpCallError(status, `HTTP ${status}`, retryAfterMs),
  data: { status_code: status, headers: {}, data: null, body: null },
  http: { status, headers: {} },
  attempt,
  durationMs: 5,
});
const codeError = (attempt = 1): CallOutcome => ({
  status: 'error',
  error: { kind: 'code', message: 'ZeroDivisionError: division by zero', retryable: false, code: 'ZeroDivisionError' },
  attempt,
  durationMs: 5,
});

const retry = (maxAttempts: number, over: Partial<RetryAction['backoff']> = {}): RetryAction => ({
  do: 'retry',
  maxAttempts,
  backoff: { strategy: 'fixed', delaySeconds: 1, multiplier: 2, maxDelaySeconds: 60, jitter: false, ...over },
});
const policy = (when: Policy['when'], action: Policy['action'], on: Policy['on'] = 'any', set: Policy['set'] = []): Policy => ({
  when,
  on,
  action,
  set,
});
const setOp = { scope: 'iter', key: 'x', value: 1 } as const;

function rules(raw: unknown): Policy[] {
  return compileRules(raw, 'p', (path, message) => {
    throw new Error(`${path}: ${message}`);
  });
}

describe('evaluatePolicies', () => {
  describe('no match', () => {
    it('completes a success', () => {
      expect(evaluatePolicies([], ok(), options())).toEqual({ kind: 'complete', set: [] });
    });

    it('fails an error, with its message', () => {
      expect(evaluatePolicies([], codeError(), options())).toEqual({
        kind: 'fail',
        set: [],
        reason: 'no policy handled the error: ZeroDivisionError: division by zero',
      });
    });

    it('fails an error whose only policies are false', () => {
      const decision = evaluatePolicies([policy('{{ ctx.stop }}', retry(3)), policy(false, { do: 'proceed' })], httpError(500), options());
      expect(decision.kind).toBe('fail');
    });
  });

  it('takes the first matching policy and evaluates no further', () => {
    const opts = options();
    const decision = evaluatePolicies(
      [
        policy('{{ ctx.stop }}', { do: 'break' }),
        policy('{{ output.status == "error" }}', { do: 'fail' }, 'any', [setOp]),
        policy('{{ output.error.retryable }}', retry(3)),
      ],
      httpError(500),
      opts,
    );
    expect(decision).toEqual({ kind: 'fail', set: [setOp], reason: 'policy 1 (when {{ output.status == "error" }}) chose fail: HTTP 500' });
    expect(opts.seen).toEqual(['{{ ctx.stop }}', '{{ output.status == "error" }}']);
  });

  it('lays the outcome names over the outer scope', () => {
    const opts = options({ scope: { ctx: { stop: true }, output: 'stale', response: 'stale' } });
    expect(evaluatePolicies([policy('{{ ctx.stop }}', { do: 'break' })], ok(), opts)).toEqual({ kind: 'break', set: [] });
    const captured: Array<Record<string, unknown>> = [];
    evaluatePolicies([policy('{{ x }}', { do: 'break' })], httpError(503), {
      ...opts,
      evaluateWhen: (_when, scope) => (captured.push(scope), false),
    });
    expect(read(captured[0]!, 'output.http.status')).toBe(503);
    expect(captured[0]!.response).toBeNull();
    expect(read(captured[0]!, 'ctx.stop')).toBe(true);
  });

  describe('on filters by outcome', () => {
    const policies = [policy(true, retry(3), 'error'), policy(true, { do: 'break' }, 'success')];
    it('an error meets only error and any policies', () => {
      expect(evaluatePolicies(policies, codeError(), options()).kind).toBe('retry');
    });
    it('a success meets only success and any policies', () => {
      expect(evaluatePolicies(policies, ok(), options()).kind).toBe('break');
    });
    it('an error policy never completes a success', () => {
      expect(evaluatePolicies([policy(true, { do: 'fail' }, 'error')], ok(), options())).toEqual({ kind: 'complete', set: [] });
    });
    it('else matches an error too (the skip pattern)', () => {
      const decision = evaluatePolicies(
        rules({ rules: [{ else: { then: { do: 'continue', set: { 'iter.x': 1 } } } }] }),
        codeError(),
        options(),
      );
      expect(decision).toEqual({ kind: 'complete', set: [setOp] });
    });
  });

  it.each<[string, Policy['action'], unknown]>([
    ['continue (proceed) completes', { do: 'proceed' }, { kind: 'complete', set: [setOp] }],
    ['jump goes to the task', { do: 'jump', to: 'fetch_page' }, { kind: 'jump', task: 'fetch_page', set: [setOp] }],
    ['break breaks', { do: 'break' }, { kind: 'break', set: [setOp] }],
    ['fail fails', { do: 'fail' }, { kind: 'fail', set: [setOp], reason: 'policy 0 (when true) chose fail' }],
  ])('%s, with the matched set', (_name, action, decision) => {
    expect(evaluatePolicies([policy(true, action, 'any', [setOp])], ok(), options())).toEqual(decision);
  });

  it('names else in a fail reason', () => {
    expect(evaluatePolicies([policy('else', { do: 'fail' })], codeError(), options())).toMatchObject({
      reason: 'policy 0 (else) chose fail: ZeroDivisionError: division by zero',
    });
  });

  describe('retry', () => {
    it('retries with the next attempt number and the backoff for this retry', () => {
      const policies = [policy(true, retry(4, { strategy: 'exponential', delaySeconds: 0.5 }), 'error', [setOp])];
      expect(evaluatePolicies(policies, httpError(503, 1), options())).toEqual({ kind: 'retry', attempt: 2, delayMs: 500, set: [setOp] });
      expect(evaluatePolicies(policies, httpError(503, 2), options())).toEqual({ kind: 'retry', attempt: 3, delayMs: 1000, set: [setOp] });
      expect(evaluatePolicies(policies, httpError(503, 3), options())).toEqual({ kind: 'retry', attempt: 4, delayMs: 2000, set: [setOp] });
    });

    it('fails when the attempts are used up, saying so', () => {
      expect(evaluatePolicies([policy(true, retry(3))], httpError(503, 3), options())).toEqual({
        kind: 'fail',
        set: [],
        reason: 'retry attempts exhausted (3 of 3): HTTP 503',
      });
      expect(evaluatePolicies([policy(true, retry(1))], ok(undefined, 1), options())).toMatchObject({
        kind: 'fail',
        reason: 'retry attempts exhausted (1 of 1)',
      });
    });

    it('waits at least Retry-After', () => {
      const policies = [policy(true, retry(5, { strategy: 'none' }))];
      expect(evaluatePolicies(policies, httpError(429, 1, 1000), options())).toMatchObject({ kind: 'retry', delayMs: 1000 });
      const longer = [policy(true, retry(5, { strategy: 'fixed', delaySeconds: 3 }))];
      expect(evaluatePolicies(longer, httpError(429, 1, 1000), options())).toMatchObject({ kind: 'retry', delayMs: 3000 });
    });

    it('uses the injected random source for jitter', () => {
      const policies = [policy(true, retry(5, { strategy: 'fixed', delaySeconds: 2, jitter: true }))];
      expect(evaluatePolicies(policies, httpError(500), options({ random: () => 0 }))).toMatchObject({ delayMs: 1000 });
      expect(evaluatePolicies(policies, httpError(500), options({ random: () => 0.75 }))).toMatchObject({ delayMs: 2500 });
    });

    it('may re-run a success (polling), with no Retry-After', () => {
      expect(evaluatePolicies([policy(true, retry(3))], ok(), options())).toEqual({ kind: 'retry', attempt: 2, delayMs: 1000, set: [] });
    });
  });

  describe('continuation', () => {
    const cont = { do: 'continue', maxAttempts: 3, nextCall: { params: { page: '{{ response.paging.page + 1 }}' } } } as const;
    const policies = [policy('{{ response.paging.hasMore }}', cont, 'success', [setOp])];

    it('continues while the condition holds on the response body', () => {
      expect(evaluatePolicies(policies, httpOk({ paging: { hasMore: true } }), options())).toEqual({
        kind: 'continue',
        policy: cont,
        set: [setOp],
      });
      expect(evaluatePolicies(policies, httpOk({ paging: { hasMore: true } }), options({ continuationCount: 2 })).kind).toBe('continue');
    });

    it('completes when the condition no longer holds', () => {
      expect(evaluatePolicies(policies, httpOk({ paging: { hasMore: false } }), options())).toEqual({ kind: 'complete', set: [] });
    });

    it('completes at its cap of calls', () => {
      expect(evaluatePolicies(policies, httpOk({ paging: { hasMore: true } }), options({ continuationCount: 3 }))).toEqual({
        kind: 'complete',
        set: [setOp],
      });
      const one = [policy(true, { ...cont, maxAttempts: 1 }, 'success')];
      expect(evaluatePolicies(one, ok(), options())).toEqual({ kind: 'complete', set: [] });
    });

    it('never continues after an error', () => {
      expect(evaluatePolicies([policy(true, cont, 'any')], codeError(), options())).toEqual({
        kind: 'fail',
        set: [],
        reason: 'policy 0 continues only after a success: ZeroDivisionError: division by zero',
      });
    });
  });

  it('propagates a template error from evaluateWhen', () => {
    const throwing = options({
      evaluateWhen: () => {
        throw new Error('undefined filter: nope');
      },
    });
    expect(() => evaluatePolicies([policy('{{ x | nope }}', { do: 'fail' })], ok(), throwing)).toThrow('undefined filter: nope');
  });

  describe('fixture rules, compiled then evaluated', () => {
    it('retry_simple_config boolean_retry: delay alone means no wait; exhausted on the third 503', () => {
      const compiled = rules({
        rules: [
          { when: '{{ output.http.status in [500, 502, 503] }}', then: { do: 'retry', attempts: 3, delay: 0.5 } },
          { when: '{{ output.status == "error" }}', then: { do: 'fail' } },
          { else: { then: { do: 'continue' } } },
        ],
      });
      expect(evaluatePolicies(compiled, httpError(503, 1), options())).toEqual({ kind: 'retry', attempt: 2, delayMs: 0, set: [] });
      expect(evaluatePolicies(compiled, httpError(503, 3), options())).toMatchObject({
        kind: 'fail',
        reason: expect.stringContaining('exhausted (3 of 3)'),
      });
      expect(evaluatePolicies(compiled, httpError(404, 1), options())).toMatchObject({
        kind: 'fail',
        reason: expect.stringContaining('policy 1'),
      });
      expect(evaluatePolicies(compiled, httpOk({}), options())).toEqual({ kind: 'complete', set: [] });
    });

    it('test_pipeline_error_handling test_rate_limit: a 429 with Retry-After 1 s and delay 2.0 waits 1 s', () => {
      const compiled = rules({
        rules: [{ when: "{{ output.error.kind == 'rate_limit' }}", then: { do: 'retry', attempts: 5, delay: 2.0 } }],
      });
      expect(evaluatePolicies(compiled, httpError(429, 1, 1000), options())).toEqual({ kind: 'retry', attempt: 2, delayMs: 1000, set: [] });
    });

    it('pagination/retry: output.error.status matches through the alias', () => {
      const compiled = rules({
        rules: [
          { when: '{{ output.error.status in [500, 502, 503] }}', then: { do: 'retry', attempts: 3, backoff: 'exponential', delay: 0.5 } },
        ],
      });
      expect(evaluatePolicies(compiled, httpError(502, 2), options())).toEqual({ kind: 'retry', attempt: 3, delayMs: 1000, set: [] });
    });

    it('python_retry_exception: any error retries 5 times exponentially from 0.2 s, else continues', () => {
      const compiled = rules({
        rules: [
          { when: '{{ output.status == "error" }}', then: { do: 'retry', attempts: 5, delay: 0.2, backoff: 'exponential' } },
          { else: { then: { do: 'continue' } } },
        ],
      });
      const waits = [1, 2, 3, 4].map((attempt) => evaluatePolicies(compiled, codeError(attempt), options()));
      expect(waits.map((d) => (d.kind === 'retry' ? d.delayMs : d.kind))).toEqual([200, 400, 800, 1600]);
      expect(evaluatePolicies(compiled, codeError(5), options()).kind).toBe('fail');
      expect(evaluatePolicies(compiled, ok(), options()).kind).toBe('complete');
    });

    it('unified retry: retry: true retries any error 3 times with jittered exponential waits', () => {
      const compiled = compileRetry(
        true,
        'r',
        () => undefined,
        () => undefined,
      );
      expect(evaluatePolicies(compiled, codeError(1), options({ random: () => 0.5 }))).toEqual({
        kind: 'retry',
        attempt: 2,
        delayMs: 1000,
        set: [],
      });
      expect(evaluatePolicies(compiled, codeError(2), options({ random: () => 0 }))).toEqual({
        kind: 'retry',
        attempt: 3,
        delayMs: 1000,
        set: [],
      });
      expect(evaluatePolicies(compiled, codeError(3), options()).kind).toBe('fail');
      expect(evaluatePolicies(compiled, ok(), options())).toEqual({ kind: 'complete', set: [] });
    });

    it('unified retry: error side then pagination, each on its own outcome', () => {
      const compiled = compileRetry(
        [
          { when: '{{ error.status == 429 }}', then: { max_attempts: 5, jitter: false } },
          { when: '{{ response.paging.hasMore }}', then: { max_attempts: 2, next_call: { params: { page: 2 } } } },
        ],
        'r',
        () => undefined,
        () => undefined,
      );
      expect(evaluatePolicies(compiled, httpError(429, 2), options())).toEqual({ kind: 'retry', attempt: 3, delayMs: 2000, set: [] });
      expect(evaluatePolicies(compiled, httpError(500, 1), options()).kind).toBe('fail');
      expect(evaluatePolicies(compiled, httpOk({ paging: { hasMore: true } }), options()).kind).toBe('continue');
      expect(evaluatePolicies(compiled, httpOk({ paging: { hasMore: true } }), options({ continuationCount: 2 })).kind).toBe('complete');
    });
  });
});
