import type { CallErrorInfo, Collect, ContinueAction, JsonObject, Policy, Task } from '../model';
import { collectPage, mergeNextCall, outcomeScope, responseBody } from '../policy';
import { toCallErrorInfo } from './call-errors';
import { foldCallRecords } from './fold-call-records';
import type { CallRecord, InterpreterDeps } from './interpreter-deps';
import { runPipeline } from './run-pipeline';
import { extendScope, type RunState } from './run-state';
import { runSinkRecorded } from './run-sink';
import { decide, policyFailure } from './run-task';
import { defineOwn, isRecord } from './write-path';

/** The template name of the collection when `collect.into` is not given. */
const DEFAULT_INTO = 'pages';

export interface ContinuationArgs {
  task: Task;
  stepInput: JsonObject;
  /** The step's success-side policies (`on: success`), in order. */
  successPolicies: readonly Policy[];
  /** Rule policies the step lends its task. */
  taskPolicies: readonly Policy[];
  state: RunState;
  signal: AbortSignal;
  records: CallRecord[];
}

/**
 * Success-side continuation of a single-tool step (DSL.md s5.1, seed 004):
 * call; collect the page (`collect` of the policy that asked for it, for the
 * first page the first continuation policy's); run that policy's
 * `per_iteration.sink` for the page (its failure fails the step); evaluate
 * the success policies with `response`/`page` (the body), `_retry: {index,
 * count}`, `iteration`, and the collection as `pages` and the `into` name;
 * on `continue`, render `next_call` in the same scope, merge it over the
 * previous rendered config and call again. Stops when no continuation
 * matches, at `max_attempts`, after a `break`, or when the task's own
 * policies swallowed an error (that call is not a page). Each call goes
 * through the task's policies first (e.g. a retry on 429). The result is
 * `{data, pages: n, page_count: n, <into>: collection, last: <last raw result>}`
 * (`<into>` last, so `into: pages` makes `pages` the collection). The
 * pages' call records are folded (one per task and outcome).
 */
export async function runContinuation(args: ContinuationArgs, deps: InterpreterDeps): Promise<ContinuationOutcome> {
  // Its pages' calls and sinks are reported folded: the history stays bounded however many pages it reads.
  const records: CallRecord[] = [];
  try {
    return await readPages({ ...args, records }, deps);
  } finally {
    args.records.push(...foldCallRecords(records));
  }
}

type ContinuationOutcome = { status: 'ok'; result: Record<string, unknown> } | { status: 'error'; error: CallErrorInfo };

async function readPages(args: ContinuationArgs, deps: InterpreterDeps): Promise<ContinuationOutcome> {
  const { task, state, signal } = args;
  let active = args.successPolicies.map((policy) => policy.action).find(isContinue);
  let collected: unknown;
  let pages = 0;
  let config: Record<string, unknown> | undefined;
  for (;;) {
    const pipeline = { tasks: [task], stepInput: args.stepInput, state, signal, extraPolicies: args.taskPolicies };
    const run = await runPipeline({ ...pipeline, ...(config ? { firstConfig: config } : {}) }, deps);
    args.records.push(...run.records);
    if (run.status === 'error') return run;
    const last = run.last;
    if (last === undefined || last.outcome.status !== 'ok' || last.kind === 'break') break;

    pages += 1;
    const body = responseBody(last.outcome);
    collected = collectPage(collected, body, active?.collect);
    const pageScope = pageNames(body, pages, collected, active?.collect);
    const sink = active?.perIteration?.sink;
    if (sink !== undefined) {
      const sinkArgs = { iterationResult: body, scope: state.scope(pageScope), signal };
      const sunk = await runSinkRecorded(sink, sinkArgs, deps);
      args.records.push(...sunk.records);
      if (sunk.status === 'error') return sunk;
    }

    let next: Record<string, unknown> | undefined;
    try {
      const scope = state.scope(pageScope);
      const decision = await decide(args.successPolicies, last.outcome, () => scope, deps, pages);
      const policyScope = extendScope(scope, { ...outcomeScope(last.outcome), ...pageScope });
      await state.applySet(decision.set, policyScope, deps.render);
      if (decision.kind === 'fail') return { status: 'error', error: policyFailure(decision.reason) };
      if (decision.kind === 'continue') {
        active = decision.policy;
        const rendered = await deps.render.renderValue(decision.policy.nextCall, policyScope);
        next = mergeNextCall(last.config ?? {}, isRecord(rendered) ? rendered : {});
      }
    } catch (error) {
      return { status: 'error', error: toCallErrorInfo(error) };
    }
    if (next === undefined) break;
    config = next;
  }
  const into = active?.collect?.into ?? DEFAULT_INTO;
  const data = collected ?? ((active?.collect?.strategy ?? 'append') === 'append' ? [] : null);
  const result: Record<string, unknown> = { data, pages, page_count: pages };
  defineOwn(result, into, data);
  defineOwn(result, 'last', state.resultOf(task.name));
  return { status: 'ok', result };
}

function isContinue(action: Policy['action']): action is ContinueAction {
  return action.do === 'continue';
}

/** The names a page's templates see besides the policy scope. */
function pageNames(body: unknown, index: number, collected: unknown, collect: Collect | undefined): Record<string, unknown> {
  const names: Record<string, unknown> = {
    response: body,
    page: body,
    _retry: { index, count: index },
    iteration: index,
    pages: collected,
  };
  defineOwn(names, collect?.into ?? DEFAULT_INTO, collected);
  return names;
}
