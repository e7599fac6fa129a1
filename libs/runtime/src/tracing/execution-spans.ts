import type { ExecutionState, StepRun } from '@noetl/event-kernel';
import { executionSpanId, executionTraceId, stepRunSpanId } from './trace-ids';
import { recordSpan } from './tracing';

/**
 * The span of a step run that ended: from its `step.enter` to its
 * `step.exit`, child of its execution's span. The command and frame spans of
 * workers hang below it (they derive its id, or receive it as traceparent).
 */
export function recordStepRun(executionId: string, run: StepRun): void {
  recordSpan({
    name: `step ${run.step}`,
    traceId: executionTraceId(executionId),
    spanId: stepRunSpanId(run.runId),
    parentSpanId: executionSpanId(executionId),
    start: run.startedAt,
    end: run.completedAt ?? run.startedAt,
    attributes: { execution_id: executionId, step: run.step, run_id: run.runId, attempt: run.attempts, outcome: run.status },
    ...(run.error ? { error: run.error.message } : {}),
  });
}

/** The root span of an execution that ended: from its start to its end. */
export function recordExecution(state: ExecutionState): void {
  recordSpan({
    name: `execution ${state.path}`,
    traceId: executionTraceId(state.executionId),
    spanId: executionSpanId(state.executionId),
    start: state.startedAt,
    end: state.completedAt ?? state.startedAt,
    attributes: {
      execution_id: state.executionId,
      playbook: state.path,
      outcome: state.status,
      ...(state.parentExecutionId ? { parent_execution_id: state.parentExecutionId } : {}),
    },
    ...(state.error ? { error: state.error.message } : {}),
  });
}
