import type { Collect, ContinueAction, JsonObject, Policy, RetryAction, SetOp, Sink } from '../model';
import { POLICY_SET_BARE_SCOPE, readStrategy } from './compile-rule-action';
import { compileSet } from './compile-set';
import { DEFAULT_CONTINUATION_MAX_CALLS, DEFAULT_RETRY_ATTEMPTS, DEFAULT_UNIFIED_BACKOFF } from './policy-defaults';
import { asJson, checkKeys, childPath, describe, isRecord, readBoolean, readNumber, type Report } from './policy-values';

/** Supplied by the parser: compiles a `sink:` (a full tool or the table form); reports itself. */
export type CompileSink = (raw: unknown, path: string) => Sink | undefined;

/** Keys that only an error-side `then` has (`attempts`/`delay`/`backoff` are the rule spellings, accepted here too). */
const ERROR_ONLY_KEYS = ['attempts', 'initial_delay', 'delay', 'backoff', 'backoff_multiplier', 'max_delay', 'jitter'];
/** Keys that make a `then` success-side (`max_iterations` and a direct `sink` are legacy spellings). */
const SUCCESS_ONLY_KEYS = ['next_call', 'collect', 'per_iteration', 'sink', 'max_iterations'];
const ERROR_KEYS = ['max_attempts', ...ERROR_ONLY_KEYS, 'set'];
const SUCCESS_KEYS = ['max_attempts', ...SUCCESS_ONLY_KEYS, 'set'];

/** Request keys `next_call` may override (with the tool aliases `endpoint`, `payload`/`json`/`data`, `args`). */
export const NEXT_CALL_KEYS = [
  'params',
  'url',
  'endpoint',
  'method',
  'headers',
  'body',
  'payload',
  'json',
  'data',
  'input',
  'args',
  'query',
  'command',
  'timeout',
] as const;

const COLLECT_STRATEGIES: readonly Collect['strategy'][] = ['append', 'replace', 'merge'];

export interface CompiledThen {
  on: Policy['on'];
  action: RetryAction | ContinueAction;
  set: SetOp[];
}

export interface ThenOptions {
  /** Forces the side (legacy `on_error` / `on_success`); otherwise it is read from the keys. */
  side?: 'error' | 'success';
  /** Keys of the surrounding flat form (`when`, `while`, ...) that are not `then` keys. */
  extraKeys?: readonly string[];
}

/**
 * A unified `then:` (DSL.md s5.1) without `do:`. With `next_call`, `collect`
 * or `per_iteration` it is a success-side continuation (`on: success`,
 * `max_attempts` caps the calls, default 100); otherwise an error-side retry
 * (`on: error`, `max_attempts` total runs, default 3; exponential backoff
 * from `initial_delay` 1.0 by `backoff_multiplier` 2.0, capped at `max_delay`
 * 60, `jitter` true; `backoff: <strategy>` may pick another strategy).
 */
export function compileRetryThen(
  raw: unknown,
  path: string,
  report: Report,
  compileSink: CompileSink,
  options: ThenOptions = {},
): CompiledThen | undefined {
  if (!isRecord(raw)) {
    report(path, `must be a mapping like {max_attempts: 3} or {next_call: {...}}, got ${describe(raw)}`);
    return undefined;
  }
  const extraKeys = options.extraKeys ?? [];
  const side = options.side ?? detectSide(raw, path, report);
  if (side === undefined) return undefined;
  checkKeys(raw, [...(side === 'error' ? ERROR_KEYS : SUCCESS_KEYS), ...extraKeys], path, report, `an ${side}-side retry`);
  const set = compileSet(raw.set, childPath(path, 'set'), report, POLICY_SET_BARE_SCOPE);
  return side === 'error'
    ? { on: 'error', action: errorAction(raw, path, report), set }
    : { on: 'success', action: continueAction(raw, path, report, compileSink), set };
}

function detectSide(raw: Record<string, unknown>, path: string, report: Report): 'error' | 'success' | undefined {
  const success = SUCCESS_ONLY_KEYS.filter((key) => key in raw);
  const error = ERROR_ONLY_KEYS.filter((key) => key in raw);
  if (success.length > 0 && error.length > 0) {
    report(path, `mixes error-side keys (${error.join(', ')}) with success-side keys (${success.join(', ')}); write two policies`);
    return undefined;
  }
  return success.length > 0 ? 'success' : 'error';
}

function errorAction(raw: Record<string, unknown>, path: string, report: Report): RetryAction {
  const defaults = DEFAULT_UNIFIED_BACKOFF;
  return {
    do: 'retry',
    maxAttempts: readNumber(raw, ['max_attempts', 'attempts'], DEFAULT_RETRY_ATTEMPTS, path, report, {
      integer: true,
      min: 1,
    }),
    backoff: {
      strategy: readStrategy(raw.backoff, childPath(path, 'backoff'), defaults.strategy, report),
      delaySeconds: readNumber(raw, ['initial_delay', 'delay'], defaults.delaySeconds, path, report, { min: 0 }),
      multiplier: readNumber(raw, ['backoff_multiplier'], defaults.multiplier, path, report, { above: 0 }),
      maxDelaySeconds: readNumber(raw, ['max_delay'], defaults.maxDelaySeconds, path, report, { min: 0 }),
      jitter: readBoolean(raw, 'jitter', defaults.jitter, path, report),
    },
  };
}

function continueAction(raw: Record<string, unknown>, path: string, report: Report, compileSink: CompileSink): ContinueAction {
  const action: ContinueAction = {
    do: 'continue',
    maxAttempts: readNumber(raw, ['max_attempts', 'max_iterations'], DEFAULT_CONTINUATION_MAX_CALLS, path, report, {
      integer: true,
      min: 1,
    }),
    nextCall: compileNextCall(raw.next_call, childPath(path, 'next_call'), report),
  };
  const collect = compileCollect(raw.collect, childPath(path, 'collect'), report);
  if (collect !== undefined) action.collect = collect;
  const sink = perIterationSink(raw, path, report, compileSink);
  if (sink !== undefined) action.perIteration = { sink };
  return action;
}

/** `next_call` (absent: the same request again, e.g. polling). Values stay unrendered. */
function compileNextCall(raw: unknown, path: string, report: Report): JsonObject {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) {
    report(path, `must be a mapping of request keys (params, url, headers, body, input), got ${describe(raw)}`);
    return {};
  }
  checkKeys(raw, NEXT_CALL_KEYS, path, report, '`next_call`');
  const nextCall: JsonObject = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!(NEXT_CALL_KEYS as readonly string[]).includes(key)) continue;
    const json = asJson(value, childPath(path, key), report);
    if (json !== undefined) nextCall[key] = json;
  }
  return nextCall;
}

/** `collect: {strategy, path, into}`; `collect: append` is the short form. */
function compileCollect(raw: unknown, path: string, report: Report): Collect | undefined {
  if (raw === undefined || raw === null) return undefined;
  const body = typeof raw === 'string' ? { strategy: raw } : raw;
  if (!isRecord(body)) {
    report(path, `must be a mapping {strategy, path, into}, got ${describe(raw)}`);
    return undefined;
  }
  checkKeys(body, ['strategy', 'path', 'into'], path, report, '`collect`');
  const collect: Collect = { strategy: 'append' };
  const strategy = body.strategy;
  if (strategy !== undefined && strategy !== null) {
    if (typeof strategy === 'string' && (COLLECT_STRATEGIES as readonly string[]).includes(strategy)) {
      collect.strategy = strategy as Collect['strategy'];
    } else {
      report(
        typeof raw === 'string' ? path : childPath(path, 'strategy'),
        `unknown collect strategy ${describe(strategy)}; expected one of: ${COLLECT_STRATEGIES.join(', ')}`,
      );
    }
  }
  const dotted = readName(body, 'path', path, report, /^[A-Za-z0-9_$\-[\]]+(\.[A-Za-z0-9_$\-[\]]+)*$/);
  if (dotted !== undefined) collect.path = dotted;
  const into = readName(body, 'into', path, report, /^[A-Za-z_][A-Za-z0-9_]*$/);
  if (into !== undefined) collect.into = into;
  return collect;
}

function readName(raw: Record<string, unknown>, key: string, path: string, report: Report, shape: RegExp): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !shape.test(value)) {
    report(childPath(path, key), `must be ${key === 'into' ? 'a name' : 'a dotted path like data.items'}, got ${describe(value)}`);
    return undefined;
  }
  return value;
}

/** `per_iteration: {sink}`, or a `sink` directly in `then` (legacy). */
function perIterationSink(raw: Record<string, unknown>, path: string, report: Report, compileSink: CompileSink): Sink | undefined {
  const perIteration = raw.per_iteration;
  const perPath = childPath(path, 'per_iteration');
  let sink: { raw: unknown; path: string } | undefined;
  if (perIteration !== undefined && perIteration !== null) {
    if (!isRecord(perIteration)) {
      report(perPath, `must be a mapping {sink: {tool: ...}}, got ${describe(perIteration)}`);
    } else {
      checkKeys(perIteration, ['sink'], perPath, report, '`per_iteration`');
      if (perIteration.sink !== undefined && perIteration.sink !== null) {
        sink = { raw: perIteration.sink, path: childPath(perPath, 'sink') };
      }
    }
  }
  if (raw.sink !== undefined && raw.sink !== null) {
    if (sink !== undefined) {
      report(childPath(path, 'sink'), 'give the sink once: either `per_iteration.sink` or `sink`');
      return undefined;
    }
    sink = { raw: raw.sink, path: childPath(path, 'sink') };
  }
  return sink === undefined ? undefined : compileSink(sink.raw, sink.path);
}
