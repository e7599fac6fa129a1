import type { Backoff } from '../model';

/**
 * Defaults, one place.
 *
 * Unified `retry:` (DSL.md s5.1), used by `retry: true`, `retry: N`, the
 * single legacy form, `on_error` and every `then:` without `next_call`:
 * 3 runs in all, waits 1 s, 2 s, 4 s, ... capped at 60 s, each times a factor
 * in [0.5, 1.5) (jitter on, as in NoETL's `RetryPolicy`, so that callers
 * rate-limited together do not retry together).
 */
export const DEFAULT_RETRY_ATTEMPTS = 3;
export const DEFAULT_UNIFIED_BACKOFF: Readonly<Backoff> = Object.freeze({
  strategy: 'exponential',
  delaySeconds: 1,
  multiplier: 2,
  maxDelaySeconds: 60,
  jitter: true,
});

/**
 * Task policy rules (DSL.md s5.2, RESULT_SHAPES s6): `attempts` 3 total,
 * `delay` 1.0, `backoff: none` unless given, so `delay` alone means no wait,
 * as both references compute it; exponential doubles (delay*2^(n-1)). No jitter:
 * the references wait exactly. Capped at 60 s like the unified form, so an
 * exponential rule cannot grow without bound.
 */
export const DEFAULT_RULE_BACKOFF: Readonly<Backoff> = Object.freeze({
  strategy: 'none',
  delaySeconds: 1,
  multiplier: 2,
  maxDelaySeconds: 60,
  jitter: false,
});

/** Success-side continuation (pagination, polling): at most 100 calls (pages) unless `max_attempts` says otherwise. */
export const DEFAULT_CONTINUATION_MAX_CALLS = 100;

export const BACKOFF_STRATEGIES: readonly Backoff['strategy'][] = ['none', 'fixed', 'linear', 'exponential'];
