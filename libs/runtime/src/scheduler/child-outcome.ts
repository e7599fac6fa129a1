import type { Json, JsonObject } from '@noetl/event-kernel';
import type { CommandOutcome } from '../control-plane/command-outcome';
import type { ExecutionDetail } from '../executions/execution-types';

/** A child execution that ended, as its parent's `playbook` command sees it. */
export interface ChildEnd {
  parentCommandId: string;
  detail: ExecutionDetail;
  /** The tool's `return_step`, when set. */
  returnStep?: string;
  /** That step's result in the child. */
  stepResult?: Json;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * RESULT_SHAPES s5 `playbook`, as recommended there: the parent's step result
 * is `{status, execution_id, path}` merged over the child's `return_step`
 * result (or with the child's result under `result` when no step is named);
 * a child that did not complete fails the command.
 */
export function childOutcome(end: ChildEnd): CommandOutcome {
  const { detail } = end;
  if (detail.status !== 'COMPLETED') {
    const why = detail.error ? `: ${detail.error.message}` : '';
    return {
      status: 'FAILED',
      error: {
        kind: 'child_failed',
        message: `child execution ${detail.execution_id} (${detail.path}) ended ${detail.status}${why}`,
        retryable: false,
        ...(detail.error?.step ? { step: detail.error.step } : {}),
      },
    };
  }
  const base: JsonObject = { status: detail.status, execution_id: detail.execution_id, path: detail.path };
  if (end.returnStep === undefined) return { status: 'COMPLETED', result: { ...base, result: detail.result } };
  return { status: 'COMPLETED', result: isObject(end.stepResult) ? { ...end.stepResult, ...base } : { ...base, result: end.stepResult ?? null } };
}
