import type { CallErrorInfo, JsonObject, Policy, ToolSpec } from '../model';
import { internalError } from './call-errors';
import type { CallRecord, InterpreterDeps, StepCallResult } from './interpreter-deps';
import { runContinuation } from './run-continuation';
import { runPipeline } from './run-pipeline';
import { RunState } from './run-state';

export interface StepCallArgs {
  stepName: string;
  tool: ToolSpec;
  /** Step-level bindings, unrendered; each task's `input` is merged over them. */
  stepInput: JsonObject;
  /** The step's unified `retry:` policies. */
  retry: Policy[];
  /** The render scope: workload, ctx, step results, execution_id, and iter/loop/frame in a loop. */
  scope: Record<string, unknown>;
  signal: AbortSignal;
}

/**
 * Runs the step's tool (a single task or a pipeline) in-process, as a worker
 * does for a command and a frame does per row: task policies, task-level
 * `set`, and the step's success-side continuation (single tool only).
 * Error-side `retry:` policies of the step are not run here: the scheduler
 * runs those durably (DSL.md s5.3). Never throws for a call failure: the
 * result says `error`. `ctx` holds the `ctx.*` writes (flat, by dotted key,
 * in application order) for the scheduler to apply; `iter` is the iteration
 * scope after the `iter.*` writes.
 *
 * Step result: a single tool's is its last call's raw result, or with a
 * continuation `{data, pages, <into>, last}`; a pipeline's is
 * `{...every task's fields (last wins), <task>: result, results, status: 'ok'}`.
 * `step.*` writes are merged in at the end.
 */
export async function runStepCall(args: StepCallArgs, deps: InterpreterDeps): Promise<StepCallResult> {
  const state = new RunState(args.scope);
  const calls: CallRecord[] = [];
  const finish = (outcome: { status: 'ok'; result: unknown } | { status: 'error'; error: CallErrorInfo }): StepCallResult =>
    outcome.status === 'ok'
      ? { status: 'ok', result: state.withStepWrites(outcome.result), ctx: state.ctxWrites, iter: state.iter, calls }
      : { status: 'error', error: outcome.error, ctx: state.ctxWrites, iter: state.iter, calls };

  const [first] = args.tool.tasks;
  if (first === undefined) return finish({ status: 'error', error: internalError(`step ${args.stepName} has no task to run`) });

  if (args.tool.pipeline) {
    const run = await runPipeline({ tasks: args.tool.tasks, stepInput: args.stepInput, state, signal: args.signal }, deps);
    calls.push(...run.records);
    return finish(run.status === 'ok' ? { status: 'ok', result: state.pipelineResult() } : run);
  }

  const taskPolicies = lentRulePolicies(args.retry);
  const successPolicies = args.retry.filter((policy) => policy.on === 'success');
  if (successPolicies.length > 0) {
    const run = await runContinuation(
      { task: first, stepInput: args.stepInput, successPolicies, taskPolicies, state, signal: args.signal, records: calls },
      deps,
    );
    return finish(run);
  }
  const run = await runPipeline(
    { tasks: [first], stepInput: args.stepInput, state, signal: args.signal, extraPolicies: taskPolicies },
    deps,
  );
  calls.push(...run.records);
  return finish(run.status === 'ok' ? { status: 'ok', result: state.resultOf(first.name) } : run);
}

/**
 * The step's rule policies (`retry:` entries with `do:`, `on: any`) run after
 * the single task's own, in process. So that the first match still wins
 * across the step's list, an error-side policy before them becomes a hand-off:
 * an error it matches ends the call with that error, and the scheduler
 * applies the policy durably. Without rule policies nothing is lent.
 */
function lentRulePolicies(retry: readonly Policy[]): Policy[] {
  if (!retry.some((policy) => policy.on === 'any')) return [];
  return retry.flatMap((policy): Policy[] => {
    if (policy.on === 'any') return [policy];
    if (policy.on === 'error') return [{ when: policy.when, on: 'error', action: { do: 'fail' }, set: [] }];
    return [];
  });
}
