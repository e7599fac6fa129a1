import type { Policy } from '../model';
import { compileRuleAction } from './compile-rule-action';
import { compileRetryThen, type CompileSink, type ThenOptions } from './compile-retry-then';
import { DEFAULT_RETRY_ATTEMPTS, DEFAULT_UNIFIED_BACKOFF } from './policy-defaults';
import { checkKeys, childPath, describe, isRecord, readWhen, type Report } from './policy-values';

export type { CompileSink } from './compile-retry-then';

/**
 * A step's `retry:` in every spelling (DSL.md s5.1), in order:
 * - absent, `null`, `false`, `0` -> no policy;
 * - `true` -> 3 runs on any error; `N` -> N runs on any error (unified backoff);
 * - a list of `{when, then}` (first match wins); `when` defaults to true;
 *   a `then` with `do:` is a rule action (DSL.md s5.2, `on: any`);
 * - one `{when, then}` mapping;
 * - the single legacy form `{when, max_attempts, initial_delay, ...}`
 *   (also `retry_when` for `when`, and `stop_when`: an error matching it fails at once);
 * - `{on_error: {when?, max_attempts, ...}, on_success: {while, max_attempts?, next_call, collect, per_iteration}}`.
 */
export function compileRetry(raw: unknown, path: string, report: Report, compileSink: CompileSink): Policy[] {
  if (raw === undefined || raw === null || raw === false) return [];
  if (raw === true) return [anyErrorPolicy(DEFAULT_RETRY_ATTEMPTS)];
  if (typeof raw === 'number') return attemptsOnly(raw, path, report);
  if (Array.isArray(raw)) {
    return raw.flatMap((entry, index) => compileEntry(entry, `${path}[${index}]`, report, compileSink));
  }
  if (isRecord(raw)) {
    if ('on_error' in raw || 'on_success' in raw) return compileLegacyPair(raw, path, report, compileSink);
    return compileEntry(raw, path, report, compileSink);
  }
  report(path, `retry must be true, a number of attempts, or a list of {when, then}, got ${describe(raw)}`);
  return [];
}

function anyErrorPolicy(maxAttempts: number): Policy {
  return {
    when: true,
    on: 'error',
    action: { do: 'retry', maxAttempts, backoff: { ...DEFAULT_UNIFIED_BACKOFF } },
    set: [],
  };
}

/** `retry: N`: N runs in all; 0 means no retry. */
function attemptsOnly(raw: number, path: string, report: Report): Policy[] {
  if (!Number.isInteger(raw) || raw < 0) {
    report(path, `retry as a number is the total number of attempts, a whole number >= 0, got ${raw}`);
    return [];
  }
  return raw === 0 ? [] : [anyErrorPolicy(raw)];
}

/** One list entry, or a single mapping: `{when, then}` or the flat legacy form. */
function compileEntry(raw: unknown, path: string, report: Report, compileSink: CompileSink): Policy[] {
  if (!isRecord(raw)) {
    report(path, `a retry policy must be a mapping {when, then}, got ${describe(raw)}`);
    return [];
  }
  if (!('then' in raw)) {
    return compileFlat(raw, path, report, compileSink, { whenKeys: ['when', 'retry_when'], whenRequired: false });
  }
  checkKeys(raw, ['when', 'then'], path, report, 'a retry policy');
  const when = entryWhen(raw.when, childPath(path, 'when'), report);
  const thenPath = childPath(path, 'then');
  if (when === undefined) return [];
  if (isRecord(raw.then) && 'do' in raw.then) {
    const compiled = compileRuleAction(raw.then, thenPath, report);
    return compiled === undefined ? [] : [{ when, on: 'any', action: compiled.action, set: compiled.set }];
  }
  const compiled = compileRetryThen(raw.then, thenPath, report, compileSink);
  return compiled === undefined ? [] : [{ when, ...compiled }];
}

/** An absent `when` matches (every error, or every success for a continuation). */
function entryWhen(raw: unknown, path: string, report: Report): Policy['when'] | undefined {
  if (raw === undefined || raw === null) return true;
  return readWhen(raw, path, report);
}

interface FlatOptions {
  /** Keys that spell the condition, the first present wins. */
  whenKeys: readonly [string, ...string[]];
  whenRequired: boolean;
  side?: ThenOptions['side'];
}

/** A flat policy: its condition keys and its `then` keys in one mapping. */
function compileFlat(raw: Record<string, unknown>, path: string, report: Report, compileSink: CompileSink, options: FlatOptions): Policy[] {
  const whenKey = options.whenKeys.find((key) => raw[key] !== undefined && raw[key] !== null);
  if (whenKey === undefined && options.whenRequired) {
    const [main] = options.whenKeys;
    report(childPath(path, main), `needs \`${main}: <template>\``);
    return [];
  }
  const when = whenKey === undefined ? true : readWhen(raw[whenKey], childPath(path, whenKey), report);
  const allowsStop = options.side !== 'success';
  const compiled = compileRetryThen(raw, path, report, compileSink, {
    side: options.side,
    extraKeys: allowsStop ? [...options.whenKeys, 'stop_when'] : options.whenKeys,
  });
  if (when === undefined || compiled === undefined) return [];
  const policies: Policy[] = [];
  if (raw.stop_when !== undefined && raw.stop_when !== null && allowsStop) {
    const stopPath = childPath(path, 'stop_when');
    const stop = readWhen(raw.stop_when, stopPath, report);
    if (compiled.on !== 'error') report(stopPath, '`stop_when` only applies to error retries');
    else if (stop !== undefined) policies.push({ when: stop, on: 'error', action: { do: 'fail' }, set: [] });
  }
  policies.push({ when, ...compiled });
  return policies;
}

/** `{on_error: {...}, on_success: {while, ...}}` -> the error policy, then the continuation. */
function compileLegacyPair(raw: Record<string, unknown>, path: string, report: Report, compileSink: CompileSink): Policy[] {
  checkKeys(raw, ['on_error', 'on_success'], path, report, 'a legacy retry');
  const policies: Policy[] = [];
  const onError = raw.on_error;
  const errorPath = childPath(path, 'on_error');
  if (onError === true) policies.push(anyErrorPolicy(DEFAULT_RETRY_ATTEMPTS));
  else if (typeof onError === 'number') policies.push(...attemptsOnly(onError, errorPath, report));
  else if (isRecord(onError)) {
    policies.push(
      ...compileFlat(onError, errorPath, report, compileSink, {
        whenKeys: ['when', 'retry_when'],
        whenRequired: false,
        side: 'error',
      }),
    );
  } else if (onError !== undefined && onError !== null && onError !== false) {
    report(errorPath, `must be a mapping {when, max_attempts, ...}, got ${describe(onError)}`);
  }
  const onSuccess = raw.on_success;
  const successPath = childPath(path, 'on_success');
  if (isRecord(onSuccess)) {
    policies.push(
      ...compileFlat(onSuccess, successPath, report, compileSink, {
        whenKeys: ['while', 'when'],
        whenRequired: true,
        side: 'success',
      }),
    );
  } else if (onSuccess !== undefined && onSuccess !== null) {
    report(successPath, `must be a mapping {while, next_call, collect}, got ${describe(onSuccess)}`);
  }
  return policies;
}
