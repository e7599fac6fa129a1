import { isTemplate } from '../expressions';
import type { CallErrorInfo, JsonObject, Policy, Task } from '../model';
import { internalError, toCallErrorInfo } from './call-errors';
import { DEFAULT_MAX_TASK_RUNS, type CallRecord, type InterpreterDeps } from './interpreter-deps';
import type { RunState } from './run-state';
import { runTask, type TaskRunEnd } from './run-task';

/** `to:` values that name a position rather than a task. */
const PREVIOUS = new Set(['previous', 'prev']);

export interface PipelineArgs {
  tasks: readonly Task[];
  stepInput: JsonObject;
  state: RunState;
  signal: AbortSignal;
  /** Policies evaluated after a task's own (a single-tool step lends its rule policies to its task). */
  extraPolicies?: readonly Policy[];
  /** An already rendered config for the first run of the first task (a continuation's next call). */
  firstConfig?: Record<string, unknown>;
}

export type PipelineEnd =
  | { status: 'ok'; last: Exclude<TaskRunEnd, { kind: 'fail' }> | undefined; records: CallRecord[] }
  | { status: 'error'; error: CallErrorInfo; records: CallRecord[] };

/**
 * Runs tasks in order on this worker (DSL.md s2.2): each task's end decides
 * what runs next: the next task, the task a `jump` names (`previous`/`prev`
 * is the one before; a template is rendered), nothing after a `break` (a
 * success), nothing after a failure (the pipeline fails with that error).
 * At most `deps.maxTaskRuns` task runs (default 10000); more is an
 * `internal` error. `last` is the last task run (for the step result and a
 * continuation). Never throws.
 */
export async function runPipeline(args: PipelineArgs, deps: InterpreterDeps): Promise<PipelineEnd> {
  const maxRuns = deps.maxTaskRuns ?? DEFAULT_MAX_TASK_RUNS;
  const records: CallRecord[] = [];
  let last: Exclude<TaskRunEnd, { kind: 'fail' }> | undefined;
  let index = 0;
  let runs = 0;
  while (index < args.tasks.length) {
    const task = args.tasks[index];
    if (task === undefined) break;
    runs += 1;
    if (runs > maxRuns) {
      const error = internalError(`the pipeline ran ${maxRuns} tasks without finishing (a jump loop?); the bound is maxTaskRuns`);
      return { status: 'error', error, records };
    }
    const end = await runTask(
      {
        task,
        stepInput: args.stepInput,
        policies: args.extraPolicies && args.extraPolicies.length > 0 ? [...task.policies, ...args.extraPolicies] : task.policies,
        state: args.state,
        signal: args.signal,
        ...(runs === 1 && args.firstConfig !== undefined ? { config: args.firstConfig } : {}),
      },
      deps,
    );
    records.push(end.record);
    if (end.kind === 'fail') return { status: 'error', error: end.error, records };
    last = end;
    if (end.kind === 'break') break;
    if (end.kind !== 'jump') {
      index += 1;
      continue;
    }
    const target = await jumpIndex(end.to, index, args, deps);
    if (typeof target !== 'number') return { status: 'error', error: target, records };
    index = target;
  }
  return { status: 'ok', last, records };
}

async function jumpIndex(to: string, from: number, args: PipelineArgs, deps: InterpreterDeps): Promise<number | CallErrorInfo> {
  if (PREVIOUS.has(to)) return Math.max(0, from - 1);
  let name: unknown = to;
  if (isTemplate(to)) {
    try {
      name = await deps.render.renderString(to, args.state.scope());
    } catch (error) {
      return toCallErrorInfo(error);
    }
  }
  const target = args.tasks.findIndex((task) => task.name === name);
  if (target >= 0) return target;
  return internalError(`jump target ${JSON.stringify(name)} is not a task of this pipeline`);
}
