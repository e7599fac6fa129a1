import type { CallErrorInfo, JsonObject, Policy, Sink, Task, ToolSpec } from '../model';
import { Cancelled, cancelledError, toCallErrorInfo, untilAborted } from './call-errors';
import type { CallRecord, InterpreterDeps } from './interpreter-deps';
import { RunState } from './run-state';
import { renderConfig } from './run-task';

/** What of a frame's arguments decides and runs a direct body. */
export interface DirectBodyArgs {
  tool: ToolSpec;
  stepInput: JsonObject;
  retry: Policy[];
  sink?: Sink;
  signal: AbortSignal;
  recordCalls: boolean;
}

/** A row's outcome, as the general interpreter's iteration gives it. */
export interface IterationOutcome {
  row: { status: 'ok' | 'error'; error?: CallErrorInfo };
  result?: unknown;
  ctx: Record<string, unknown>;
}

/** One row of a direct body: the row's scope is made only when its config renders a template. */
export type DirectRow = (scope: () => Record<string, unknown>, calls: CallRecord[]) => Promise<IterationOutcome>;

/**
 * A loop body compiled once per frame (issue 23 item 5), when its rows have
 * nothing to decide: one task (no pipeline), no policy of the task or the
 * step, no `set`, no sink. Such a row is one tool call, and its outcome is
 * the call's: the result, or the error that no policy handles. The general
 * interpreter (`runIteration`) reaches the same outcome through a run state,
 * a pipeline of one task, a policy decision and a retry loop, each an async
 * layer of its own: about 11 KB of garbage and four times the CPU per
 * no-op row, which on a million-row loop grew the worker's heap threefold.
 * Undefined when the body needs the general interpreter.
 */
export function directRow(args: DirectBodyArgs, deps: InterpreterDeps): DirectRow | undefined {
  const [task, ...others] = args.tool.tasks;
  if (task === undefined || others.length > 0 || args.tool.pipeline) return undefined;
  if (args.retry.length > 0 || task.policies.length > 0 || task.set.length > 0 || args.sink) return undefined;
  return (scope, calls) => callDirect(task, args, scope, calls, deps);
}

async function callDirect(
  task: Task,
  args: DirectBodyArgs,
  rowScope: () => Record<string, unknown>,
  calls: CallRecord[],
  deps: InterpreterDeps,
): Promise<IterationOutcome> {
  const started = deps.monotonicMs();
  const end = (outcome: { result: unknown } | { error: CallErrorInfo }): IterationOutcome => {
    const error = 'error' in outcome ? outcome.error : undefined;
    if (args.recordCalls) {
      const durationMs = Math.max(0, deps.monotonicMs() - started);
      calls.push({ task: task.name, attempts: 1, durationMs, status: error ? 'error' : 'ok', ...(error ? { error } : {}) });
    }
    return 'result' in outcome
      ? { row: { status: 'ok' }, result: outcome.result, ctx: NO_WRITES }
      : { row: { status: 'error', error }, ctx: NO_WRITES };
  };
  if (args.signal.aborted) return end({ error: cancelledError(args.signal) });
  let config: Record<string, unknown>;
  try {
    // The scope the general interpreter renders a first attempt against: the row's, under a run state of its own.
    let scope: Record<string, unknown> | undefined;
    config = await renderConfig(task, args.stepInput, () => (scope ??= new RunState(rowScope()).scope({ _attempt: 1 })), deps);
  } catch (error) {
    return end({ error: toCallErrorInfo(error) });
  }
  try {
    return end({ result: await untilAborted(deps.callTool(task.kind, config, args.signal), args.signal) });
  } catch (error) {
    if (error instanceof Cancelled || args.signal.aborted) return end({ error: cancelledError(args.signal) });
    return end({ error: toCallErrorInfo(error) });
  }
}

/** A direct row writes no `ctx.*` key: it has no `set`. Shared, never written to. */
const NO_WRITES: Record<string, unknown> = Object.freeze({});
