import type { Backoff, PolicyAction, SetOp } from '../model';
import { compileSet } from './compile-set';
import { BACKOFF_STRATEGIES, DEFAULT_RETRY_ATTEMPTS, DEFAULT_RULE_BACKOFF } from './policy-defaults';
import { checkKeys, childPath, describe, isRecord, readBoolean, readNumber, type Report } from './policy-values';

/** Scope of a bare key in a policy's `then.set` (DSL.md s2.3: set keys are execution variables unless scoped). */
export const POLICY_SET_BARE_SCOPE: SetOp['scope'] = 'ctx';

const RULE_DOS = ['continue', 'retry', 'jump', 'break', 'fail'] as const;
type RuleDo = (typeof RULE_DOS)[number];

const KEYS_BY_DO: Readonly<Record<RuleDo, readonly string[]>> = {
  continue: ['do', 'set'],
  retry: ['do', 'set', 'attempts', 'max_attempts', 'delay', 'backoff', 'max_delay', 'multiplier', 'backoff_multiplier', 'jitter'],
  jump: ['do', 'set', 'to', 'task', 'step'],
  break: ['do', 'set'],
  fail: ['do', 'set'],
};

/**
 * One rule action, `{do: continue|retry|jump|break|fail, ..., set}` (DSL.md
 * s5.2, RESULT_SHAPES s6 "Actions"). A `then` without `do` continues.
 * `continue` compiles to `proceed` (go on to the next task).
 * Undefined when the action cannot be understood (reported).
 */
export function compileRuleAction(raw: unknown, path: string, report: Report): { action: PolicyAction; set: SetOp[] } | undefined {
  if (!isRecord(raw)) {
    report(path, `must be a mapping like {do: retry, attempts: 3}, got ${describe(raw)}`);
    return undefined;
  }
  const rawDo = raw.do ?? 'continue';
  if (typeof rawDo !== 'string' || !(RULE_DOS as readonly string[]).includes(rawDo)) {
    report(childPath(path, 'do'), `unknown action ${describe(rawDo)}; expected one of: ${RULE_DOS.join(', ')}`);
    return undefined;
  }
  const does = rawDo as RuleDo;
  checkKeys(raw, KEYS_BY_DO[does], path, report, `a \`do: ${does}\` action`);
  const set = compileSet(raw.set, childPath(path, 'set'), report, POLICY_SET_BARE_SCOPE);
  switch (does) {
    case 'continue':
      return { action: { do: 'proceed' }, set };
    case 'break':
      return { action: { do: 'break' }, set };
    case 'fail':
      return { action: { do: 'fail' }, set };
    case 'jump': {
      const target = jumpTarget(raw, path, report);
      return target === undefined ? undefined : { action: { do: 'jump', to: target }, set };
    }
    case 'retry':
      return {
        action: {
          do: 'retry',
          maxAttempts: readNumber(raw, ['attempts', 'max_attempts'], DEFAULT_RETRY_ATTEMPTS, path, report, {
            integer: true,
            min: 1,
          }),
          backoff: ruleBackoff(raw, path, report),
        },
        set,
      };
  }
}

/** `to: <task>` (aliases `task`, `step`); `previous`/`prev` are kept as written for the pipeline runner. */
function jumpTarget(raw: Record<string, unknown>, path: string, report: Report): string | undefined {
  const key = ['to', 'task', 'step'].find((name) => raw[name] !== undefined && raw[name] !== null);
  if (key === undefined) {
    report(childPath(path, 'to'), '`do: jump` needs `to: <task name>`');
    return undefined;
  }
  const target = raw[key];
  if (typeof target !== 'string' || target.trim() === '') {
    report(childPath(path, key), `must be a task name, got ${describe(target)}`);
    return undefined;
  }
  return target;
}

function ruleBackoff(raw: Record<string, unknown>, path: string, report: Report): Backoff {
  const defaults = DEFAULT_RULE_BACKOFF;
  return {
    strategy: readStrategy(raw.backoff, childPath(path, 'backoff'), defaults.strategy, report),
    delaySeconds: readNumber(raw, ['delay'], defaults.delaySeconds, path, report, { min: 0 }),
    multiplier: readNumber(raw, ['multiplier', 'backoff_multiplier'], defaults.multiplier, path, report, { above: 0 }),
    maxDelaySeconds: readNumber(raw, ['max_delay'], defaults.maxDelaySeconds, path, report, { min: 0 }),
    jitter: readBoolean(raw, 'jitter', defaults.jitter, path, report),
  };
}

/**
 * A backoff strategy name. The references treat an unknown name like `fixed`;
 * it is reported here (a typo should not silently change the waits) and, so
 * that one report does not cascade, compiled as `fixed`.
 */
export function readStrategy(value: unknown, path: string, fallback: Backoff['strategy'], report: Report): Backoff['strategy'] {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string' && (BACKOFF_STRATEGIES as readonly string[]).includes(value)) {
    return value as Backoff['strategy'];
  }
  report(path, `unknown backoff ${describe(value)}; expected one of: ${BACKOFF_STRATEGIES.join(', ')}`);
  return 'fixed';
}
