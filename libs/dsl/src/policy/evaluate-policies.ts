import type { ContinueAction, Policy, SetOp } from '../model';
import { nextRetryDelayMs } from './next-retry-delay';
import { outcomeScope, type CallOutcome } from './outcome-scope';

/** What to do after a call, as decided by its policies. */
export type PolicyDecision =
  | { kind: 'complete'; set: SetOp[] }
  /** `attempt` is the number of the NEXT attempt; `delayMs` the wait before it. */
  | { kind: 'retry'; attempt: number; delayMs: number; set: SetOp[] }
  /** Success-side continuation: build the next call from `policy.nextCall`. */
  | { kind: 'continue'; policy: ContinueAction; set: SetOp[] }
  | { kind: 'fail'; set: SetOp[]; reason: string }
  | { kind: 'jump'; task: string; set: SetOp[] }
  | { kind: 'break'; set: SetOp[] };

export interface EvaluateOptions {
  /** Injected template evaluation of a `when` (truthiness of the rendered value). May throw a template error. */
  evaluateWhen: (when: string | boolean, scope: Record<string, unknown>) => boolean;
  /** Injected random source in [0, 1), for jitter. */
  random: () => number;
  /** The rest of the render scope (ctx, workload, iter, ...); the outcome's names are laid over it. */
  scope: Record<string, unknown>;
  /** Calls made so far in the current continuation, the one just evaluated included (default 1). */
  continuationCount?: number;
}

/**
 * Evaluates policies in order against one call outcome; the first policy
 * whose `on` admits the outcome and whose `when` holds decides (`else`
 * always holds; a boolean `when` is taken as is). No match: a success
 * completes, an error fails. A retry whose attempts are used up fails (the
 * reason says so); its wait is at least the error's `retry_after_ms`. A
 * continuation at its `maxAttempts` cap completes. The matched policy's `set`
 * comes with every decision. Template errors from `evaluateWhen` propagate.
 */
export function evaluatePolicies(policies: Policy[], outcome: CallOutcome, options: EvaluateOptions): PolicyDecision {
  const scope = { ...options.scope, ...outcomeScope(outcome) };
  for (const [index, policy] of policies.entries()) {
    if (!admits(policy.on, outcome)) continue;
    if (!holds(policy.when, scope, options)) continue;
    return decide(policy, index, outcome, options);
  }
  if (outcome.status === 'ok') return { kind: 'complete', set: [] };
  return { kind: 'fail', set: [], reason: `no policy handled the error: ${outcome.error.message}` };
}

function admits(on: Policy['on'], outcome: CallOutcome): boolean {
  if (on === 'any') return true;
  return on === 'error' ? outcome.status === 'error' : outcome.status === 'ok';
}

function holds(when: Policy['when'], scope: Record<string, unknown>, options: EvaluateOptions): boolean {
  if (when === 'else') return true;
  if (typeof when === 'boolean') return when;
  return options.evaluateWhen(when, scope);
}

function decide(policy: Policy, index: number, outcome: CallOutcome, options: EvaluateOptions): PolicyDecision {
  const set = policy.set;
  const action = policy.action;
  const cause = outcome.status === 'error' ? `: ${outcome.error.message}` : '';
  switch (action.do) {
    case 'proceed':
      return { kind: 'complete', set };
    case 'break':
      return { kind: 'break', set };
    case 'jump':
      return { kind: 'jump', task: action.to, set };
    case 'fail':
      return { kind: 'fail', set, reason: `policy ${index} (${describeWhen(policy.when)}) chose fail${cause}` };
    case 'retry': {
      if (outcome.attempt >= action.maxAttempts) {
        return {
          kind: 'fail',
          set,
          reason: `retry attempts exhausted (${outcome.attempt} of ${action.maxAttempts})${cause}`,
        };
      }
      const minimumMs = outcome.status === 'error' ? (outcome.error.retry_after_ms ?? 0) : 0;
      const delayMs = nextRetryDelayMs(action.backoff, outcome.attempt, options.random, minimumMs);
      return { kind: 'retry', attempt: outcome.attempt + 1, delayMs, set };
    }
    case 'continue': {
      if (outcome.status === 'error') {
        return { kind: 'fail', set, reason: `policy ${index} continues only after a success${cause}` };
      }
      const calls = options.continuationCount ?? 1;
      if (calls >= action.maxAttempts) return { kind: 'complete', set };
      return { kind: 'continue', policy: action, set };
    }
  }
}

function describeWhen(when: Policy['when']): string {
  if (when === 'else') return 'else';
  return `when ${typeof when === 'boolean' ? String(when) : when}`;
}
