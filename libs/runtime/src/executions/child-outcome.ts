import type { Json, JsonObject } from '@noetl/event-kernel';
import type { CommandOutcome } from '../control-plane/command-outcome';
import type { ExecutionDetail } from './execution-types';

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
 * DSL.md s3 `playbook`, as RESULT_SHAPES s5 recommends: the parent's step
 * result is the child's result (or its `return_step`'s) with
 * `{status, execution_id, path}` merged over it (a result that is not a
 * mapping goes under `result`); a child that did not complete fails the command.
 */
export function childOutcome(end: Omit<ChildEnd, 'parentCommandId'>): CommandOutcome {
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
  const value = end.returnStep === undefined ? detail.result : (end.stepResult ?? null);
  return { status: 'COMPLETED', result: isObject(value) ? { ...value, ...base } : { ...base, result: value } };
}
