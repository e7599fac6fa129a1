import { EventType, type JsonObject } from '@noetl/event-kernel';
import type { Step } from '../model';
import { isJsonObject, toPlainJson } from '../scope';
import { keychainReferences } from './keychain-refs';
import type { PlanContext } from './plan-context';
import { resolveWorkbookTasks } from './resolve-workbook';
import { stepPool } from './work-pool';

/** Lease re-dispatches a command gets (DESIGN.md invariant 4), its first run included. */
export const DEFAULT_COMMAND_MAX_ATTEMPTS = 3;

/**
 * What the worker needs to run the step's call, all unrendered: the worker
 * renders tool config and input itself against a scope it rebuilds from the
 * state (a template error there fails the step at the worker). `keychain`:
 * the playbook's entries the call reads, which the worker resolves (DSL.md s7).
 * `retry` holds the policies a success outcome can match (`on: success` and
 * `on: any`); error-side retry is the scheduler's (schedule-retry.ts).
 * `pool`: the worker pool it goes to (only that pool's workers claim it).
 */
export function commandSpec(ctx: PlanContext, step: Step, options: IssueOptions = {}): JsonObject {
  const call = {
    tool: step.tool ? resolveWorkbookTasks(ctx.playbook, step.tool, step.name) : step.tool,
    input: step.input,
    retry: step.retry.filter((policy) => policy.on !== 'error'),
  };
  const keychain = keychainReferences(ctx.playbook.keychain, call);
  const pool = stepPool(ctx.playbook, step);
  const spec = toPlainJson({
    ...call,
    scope_ref: { execution_id: ctx.state.executionId },
    step: step.name,
    ...(keychain.length > 0 ? { keychain } : {}),
    ...(options.runAlone ? { run_alone: true } : {}),
    ...(pool !== undefined ? { pool } : {}),
  });
  return isJsonObject(spec) ? spec : {};
}

export interface IssueOptions {
  /**
   * The worker runs it with nothing else beside it (`run_alone` in the spec,
   * offered as such): the next attempt of a command whose worker was lost
   * while it ran, so that a second death is known to be its own.
   */
  runAlone?: boolean;
}

/** `tool.kind` of a single task (a workbook call: its entry's kind), `pipeline` for a list-valued tool. */
export function commandKind(ctx: PlanContext, step: Step): string {
  const tasks = step.tool ? resolveWorkbookTasks(ctx.playbook, step.tool, step.name).tasks : [];
  return step.tool?.pipeline || tasks.length !== 1 ? 'pipeline' : (tasks[0]?.kind ?? 'pipeline');
}

/**
 * `command.issued` for a step run. `maxAttempts` caps lease re-dispatches of
 * this attempt chain: the first command gets 3; a command issued by an error
 * retry at attempt n gets n + 2, so every policy attempt has the same lease budget.
 */
export function issueCommand(
  ctx: PlanContext,
  step: Step,
  runId: string,
  attempt: number,
  maxAttempts: number,
  options: IssueOptions = {},
): void {
  const commandId = ctx.newId();
  ctx.emit({
    type: EventType.CommandIssued,
    step: step.name,
    commandId,
    payload: {
      command_id: commandId,
      step: step.name,
      run_id: runId,
      kind: commandKind(ctx, step),
      attempt,
      max_attempts: maxAttempts,
      spec: commandSpec(ctx, step, options),
    },
  });
}

export function leaseBudgetFor(attempt: number): number {
  return attempt + DEFAULT_COMMAND_MAX_ATTEMPTS - 1;
}
