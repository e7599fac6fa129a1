import type { JsonObject } from './json';
import type { Sink } from './loop';
import type { SetOp } from './set-op';

/**
 * One model for every retry spelling of DSL.md s5: the unified `retry:` list
 * (and its legacy forms) and `tool.spec.policy.rules`. A list of policies is
 * evaluated in order, first match wins.
 */
export interface Policy {
  /** A template, a boolean, or `else` (always matches). */
  when: string | boolean | 'else';
  /** Which outcomes the policy may match: `retry: true` only errors; pagination only successes. */
  on: 'error' | 'success' | 'any';
  action: PolicyAction;
  /** `then.set`: applied when the policy matches. */
  set: SetOp[];
}

export type PolicyAction = RetryAction | ContinueAction | { do: 'proceed' } | { do: 'fail' } | { do: 'break' } | { do: 'jump'; to: string };

/** Error-side retry: run the same call again after a backoff. */
export interface RetryAction {
  do: 'retry';
  /** Total number of runs, the first included. */
  maxAttempts: number;
  backoff: Backoff;
}

/** Success-side continuation (pagination, polling): build the next call from `next_call`. */
export interface ContinueAction {
  do: 'continue';
  /** Cap on the number of calls (pages). */
  maxAttempts: number;
  /** Merged over the previous request: `params`, `url`, `headers`, `body`, `input`, `args` (templates). */
  nextCall: JsonObject;
  collect?: Collect;
  perIteration?: { sink?: Sink };
}

export interface Collect {
  strategy: 'append' | 'replace' | 'merge';
  /** Dotted path into the response to collect (default: the whole response). */
  path?: string;
  /** Name the collection is exposed under in templates (`pages` by default). */
  into?: string;
}

/**
 * Delay before retry n (1-based count of retries so far):
 * none -> 0; fixed -> delay; linear -> delay*n; exponential -> delay*multiplier^(n-1);
 * capped by maxDelay, then times a factor in [0.5, 1.5) when jitter is on.
 */
export interface Backoff {
  strategy: 'none' | 'fixed' | 'linear' | 'exponential';
  delaySeconds: number;
  multiplier: number;
  maxDelaySeconds: number;
  jitter: boolean;
}
