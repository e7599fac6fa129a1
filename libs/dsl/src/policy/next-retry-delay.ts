import type { Backoff } from '../model';

/**
 * Milliseconds to wait before retry number `n` (1 for the first retry), per
 * `Backoff` (model/policy.ts): none -> 0; fixed -> delay; linear -> delay*n;
 * exponential -> delay*multiplier^(n-1); then capped at maxDelay; then, with
 * jitter, times 0.5 + random() (a factor in [0.5, 1.5)). The result is a
 * whole number of ms, at least `minimumMs` (a server's `Retry-After`).
 * `random` is only called when jitter applies to a non-zero wait.
 */
export function nextRetryDelayMs(backoff: Backoff, n: number, random: () => number, minimumMs = 0): number {
  const retry = Number.isFinite(n) ? Math.max(1, Math.floor(n)) : 1;
  let seconds = Math.min(baseSeconds(backoff, retry), backoff.maxDelaySeconds);
  // Hand-built backoffs only (compiled ones are validated): NaN waits the cap, a negative wait is none.
  if (Number.isNaN(seconds)) seconds = backoff.maxDelaySeconds;
  seconds = Math.max(0, seconds);
  if (backoff.jitter && seconds > 0) seconds *= 0.5 + random();
  return Math.max(Math.round(seconds * 1000), Math.ceil(Math.max(0, minimumMs)));
}

function baseSeconds(backoff: Backoff, retry: number): number {
  switch (backoff.strategy) {
    case 'none':
      return 0;
    case 'fixed':
      return backoff.delaySeconds;
    case 'linear':
      return backoff.delaySeconds * retry;
    case 'exponential':
      return backoff.delaySeconds === 0 ? 0 : backoff.delaySeconds * backoff.multiplier ** (retry - 1);
  }
}
