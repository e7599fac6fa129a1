import { holdsTemplate, TemplateError } from '../expressions';
import { CallError, type CallErrorInfo, type JsonObject, type Policy, type Task } from '../model';
import { evaluatePolicies, outcomeScope, type CallOutcome, type HttpFacts, type PolicyDecision } from '../policy';
import { Cancelled, cancelledError, templateCallError, toCallErrorInfo, untilAborted } from './call-errors';
import type { CallRecord, InterpreterDeps } from './interpreter-deps';
import { extendScope, type RunState } from './run-state';
import { defineOwn, isRecord, merged } from './write-path';

export interface TaskRunArgs {
  task: Task;
  /** Step-level bindings; the task's `input` is merged over them. */
  stepInput: JsonObject;
  /** The policies evaluated after each call (the task's rules, plus any the step lends it). */
  policies: readonly Policy[];
  state: RunState;
  signal: AbortSignal;
  /** An already rendered config (a continuation's next call): used as is, not rendered. */
  config?: Record<string, unknown>;
}

/** How a task run ended. `next`, `break` and `jump` carry the last call's outcome and rendered config. */
export type TaskRunEnd =
  | { kind: 'next' | 'break'; outcome: CallOutcome; config?: Record<string, unknown>; record: CallRecord }
  | { kind: 'jump'; to: string; outcome: CallOutcome; config?: Record<string, unknown>; record: CallRecord }
  | { kind: 'fail'; error: CallErrorInfo; record: CallRecord };

/**
 * Runs one task to its end (RESULT_SHAPES s6, s7): renders its config and
 * input against the running scope, calls the tool, and lets its policies
 * decide after every call: `retry` waits and calls again with the same
 * rendered config (re-rendering only after a template error); `complete`,
 * `jump` and `break` end the run; `fail`, or an error no policy handled,
 * fails it. The matched policy's `set` is applied with the policy scope
 * (`output`, `response`, `error`, ...); after a successful call the task's
 * own `set` is applied with `output` = the raw result. In both, the task's
 * name reads this call's result (its raw result, or the swallowed error).
 * Never throws.
 */
export async function runTask(args: TaskRunArgs, deps: InterpreterDeps): Promise<TaskRunEnd> {
  const { task, state, signal } = args;
  const started = deps.monotonicMs();
  let attempt = 1;
  let config = args.config;
  const record = (status: 'ok' | 'error', error?: CallErrorInfo): CallRecord => ({
    task: task.name,
    attempts: attempt,
    durationMs: Math.max(0, deps.monotonicMs() - started),
    status,
    ...(error !== undefined ? { error } : {}),
  });
  const fail = (error: CallErrorInfo): TaskRunEnd => ({ kind: 'fail', error, record: record('error', error) });

  for (;;) {
    if (signal.aborted) return fail(cancelledError(signal));
    // Scopes are built only when something renders or decides: a loop body's static call builds none per row.
    const attemptScope = once(() => state.scope({ _attempt: attempt }));
    const made = await attemptCall(task, args.stepInput, config, attemptScope, attempt, signal, deps);
    if (made === 'cancelled') return fail(cancelledError(signal));
    if ('fatal' in made) return fail(made.fatal);
    const { outcome } = made;
    config = made.config;
    // The task's name reads this call's result while its policies run, as it will once they have.
    const result = outcome.status === 'ok' ? outcome.data : swallowedResult(outcome.error, outcome.data);
    const scope = once(() =>
      extendScope(attemptScope(), { ...(config === undefined ? {} : { input: config.input }), [task.name]: result }),
    );
    if (outcome.status === 'error' && outcome.error.kind === 'cancelled') return fail(outcome.error);

    let decision: PolicyDecision;
    try {
      decision = await decide(args.policies, outcome, scope, deps);
      if (decision.set.length > 0) await state.applySet(decision.set, extendScope(scope(), outcomeScope(outcome)), deps.render);
    } catch (error) {
      return fail(toCallErrorInfo(error));
    }

    switch (decision.kind) {
      case 'retry': {
        if (decision.delayMs > 0) {
          try {
            await untilAborted(deps.sleep(decision.delayMs, signal), signal);
          } catch {
            if (signal.aborted) return fail(cancelledError(signal));
          }
        }
        attempt = decision.attempt;
        continue;
      }
      case 'fail':
        return fail(outcome.status === 'error' ? outcome.error : policyFailure(decision.reason));
      case 'complete':
      case 'continue':
      case 'jump':
      case 'break': {
        if (outcome.status === 'ok' && task.set.length > 0) {
          try {
            const setScope = state.scope({ _attempt: attempt, input: config?.input, output: outcome.data, [task.name]: result });
            await state.applySet(task.set, setScope, deps.render);
          } catch (error) {
            return fail(toCallErrorInfo(error));
          }
        }
        state.recordResult(task.name, result, outcome.status === 'error');
        const done = outcome.status === 'ok' ? record('ok') : record('error', outcome.error);
        const end = { outcome, record: done, ...(config !== undefined ? { config } : {}) };
        if (decision.kind === 'jump') return { kind: 'jump', to: decision.task, ...end };
        return { kind: decision.kind === 'break' ? 'break' : 'next', ...end };
      }
    }
  }
}

/**
 * Renders the config when it is not yet rendered, then calls the tool. A
 * template error is the attempt's error outcome (no call is made, and the
 * config stays unrendered so that a retry renders it again).
 */
async function attemptCall(
  task: Task,
  stepInput: JsonObject,
  rendered: Record<string, unknown> | undefined,
  scope: () => Record<string, unknown>,
  attempt: number,
  signal: AbortSignal,
  deps: InterpreterDeps,
): Promise<{ outcome: CallOutcome; config?: Record<string, unknown> } | { fatal: CallErrorInfo } | 'cancelled'> {
  let config = rendered;
  if (config === undefined) {
    try {
      config = await renderConfig(task, stepInput, scope, deps);
    } catch (error) {
      if (!(error instanceof TemplateError)) return { fatal: toCallErrorInfo(error) };
      return { outcome: { status: 'error', error: templateCallError(error), attempt, durationMs: 0 } };
    }
  }
  const outcome = await callOnce(task, config, attempt, signal, deps);
  return outcome === 'cancelled' ? outcome : { outcome, config };
}

/**
 * The task's input (merged over the step's) rendered, then its config
 * rendered with `input`; the input goes in as `config.input`. Values without
 * a template render to copies of themselves, against no scope.
 */
export async function renderConfig(
  task: Task,
  stepInput: JsonObject,
  scope: () => Record<string, unknown>,
  deps: InterpreterDeps,
): Promise<Record<string, unknown>> {
  const inputIsStatic = !holdsTemplate(stepInput) && !holdsTemplate(task.input);
  const input = await deps.render.renderValue(merged(stepInput, task.input), inputIsStatic ? NO_SCOPE : scope());
  const rendered = await deps.render.renderValue(task.config, holdsTemplate(task.config) ? extendScope(scope(), { input }) : NO_SCOPE);
  return merged(isRecord(rendered) ? rendered : {}, { input });
}

/** The scope a value without templates is rendered against: it reads none. */
const NO_SCOPE: Record<string, unknown> = Object.freeze({});

/** `make`'s value, made on the first call. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** One tool call, timed; `cancelled` when the signal aborted meanwhile. */
async function callOnce(
  task: Task,
  config: Record<string, unknown>,
  attempt: number,
  signal: AbortSignal,
  deps: InterpreterDeps,
): Promise<CallOutcome | 'cancelled'> {
  const t0 = deps.monotonicMs();
  try {
    const data = await untilAborted(deps.callTool(task.kind, config, signal), signal);
    const durationMs = Math.max(0, deps.monotonicMs() - t0);
    const http = task.kind === 'http' ? httpFacts(data, undefined) : undefined;
    return { status: 'ok', data, attempt, durationMs, ...(http ? { http } : {}) };
  } catch (error) {
    if (error instanceof Cancelled || signal.aborted) return 'cancelled';
    const durationMs = Math.max(0, deps.monotonicMs() - t0);
    const info = toCallErrorInfo(error);
    const data = error instanceof CallError ? error.data : undefined;
    const http = task.kind === 'http' ? httpFacts(data, info) : undefined;
    return { status: 'error', error: info, attempt, durationMs, ...(data !== undefined ? { data } : {}), ...(http ? { http } : {}) };
  }
}

/**
 * HTTP facts of an http task's call: the status (the result's `status_code`,
 * else the error's status; a success without one counts as 200) and the
 * string-valued headers. Undefined for an error without a status.
 */
function httpFacts(data: unknown, error: CallErrorInfo | undefined): HttpFacts | undefined {
  const raw = isRecord(data) ? data : {};
  const fromResult = typeof raw.status_code === 'number' ? raw.status_code : undefined;
  const status = fromResult ?? error?.status ?? error?.status_code ?? (error === undefined ? 200 : undefined);
  if (status === undefined) return undefined;
  const headers: Record<string, string> = {};
  if (isRecord(raw.headers)) {
    for (const [name, value] of Object.entries(raw.headers)) if (typeof value === 'string') defineOwn(headers, name, value);
  }
  return { status, headers };
}

/**
 * The policies' decision. Without policies the answer is known (a success
 * completes, an error fails) and the scope is not touched, so lazily
 * resolved step results stay unread.
 */
export async function decide(
  policies: readonly Policy[],
  outcome: CallOutcome,
  scope: () => Record<string, unknown>,
  deps: InterpreterDeps,
  continuationCount?: number,
): Promise<PolicyDecision> {
  if (policies.length === 0) {
    return outcome.status === 'ok'
      ? { kind: 'complete', set: [] }
      : { kind: 'fail', set: [], reason: `no policy handled the error: ${outcome.error.message}` };
  }
  return deps.render.settle((renderer) =>
    evaluatePolicies([...policies], outcome, {
      evaluateWhen: (when, whenScope) => renderer.evaluateCondition(when, whenScope),
      random: () => deps.random(),
      scope: scope(),
      ...(continuationCount !== undefined ? { continuationCount } : {}),
    }),
  );
}

/** A successful call a policy chose to fail (`when: ... then: {do: fail}` on an ok outcome). */
export function policyFailure(reason: string): CallErrorInfo {
  return { kind: 'code', message: reason, retryable: false, code: 'policy_fail' };
}

function swallowedResult(error: CallErrorInfo, data: unknown): Record<string, unknown> {
  return { status: 'error', error, ...(data !== undefined ? { data } : {}) };
}
