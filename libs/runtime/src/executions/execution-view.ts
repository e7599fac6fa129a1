import type { ExecutionState, Json, LedgerEvent, StepSummary } from '@noetl/event-kernel';
import type { EventView, ExecutionDetail, LoopView, StepView } from './execution-types';

/** GET /api/executions/{id}: the folded state in the shape of DESIGN.md s6; `reruns` from the execution rows that name it. */
export function executionDetail(state: ExecutionState, result: Json | null, reruns: string[]): ExecutionDetail {
  return {
    execution_id: state.executionId,
    parent_execution_id: state.parentExecutionId,
    path: state.path,
    version: state.version,
    status: state.status,
    started_at: state.startedAt,
    completed_at: state.completedAt ?? null,
    workload: state.workload,
    result,
    ...(state.resultRef ? { result_ref: state.resultRef } : {}),
    error: state.error ? { step: state.error.step ?? null, kind: state.error.kind, message: state.error.message } : null,
    steps: inExecutionOrder(Object.values(state.steps)).map((step): StepView => ({
      step: step.step,
      status: stepStatus(state, step),
      attempts: step.attempts,
      started_at: step.startedAt,
      completed_at: step.completedAt ?? null,
    })),
    loops: Object.values(state.loops).map((loop): LoopView => ({
      step: loop.step,
      loop_id: loop.loopId,
      total: loop.size,
      done: loop.succeededRows,
      failed: loop.failedRows,
      completed: loop.status === 'DONE',
    })),
    schedule: state.schedule
      ? { schedule_id: state.schedule.scheduleId, fire_time: state.schedule.fireTime, manual: state.schedule.manual === true }
      : null,
    rerun_of: state.rerunOf
      ? {
          execution_id: state.rerunOf.executionId,
          from_step: state.rerunOf.fromStep ?? null,
          as_of_event_id: state.rerunOf.asOfEventId ?? null,
        }
      : null,
    reruns,
  };
}

export function eventView(event: LedgerEvent): EventView {
  return {
    event_id: event.event_id,
    event_type: event.event_type,
    position: event.stream_version,
    step: event.node_name,
    status: event.status,
    command_id: event.command_id,
    frame_id: event.frame_id,
    loop_id: event.loop_id,
    payload: payloadJson(event.payload),
    payload_ref: event.payload_ref,
    created_at: event.event_time,
  };
}

/**
 * An event's payload as the JSON it is: every payload type is made of JSON
 * values (the ledger keeps it in a jsonb column), but most are interfaces,
 * which have no index signature and whose optional fields admit
 * `undefined`, so TypeScript does not take them for `Json` by itself.
 */
function payloadJson(payload: LedgerEvent['payload']): Json {
  return payload as Json;
}

/**
 * What a step's latest run is doing. The state says only RUNNING until it
 * ends; the view tells apart a run whose command no worker has claimed yet
 * (or whose retry is due), one that waits (a `wait` step parks with no
 * command, with a timer only when it has a timeout; a sleep has its timer),
 * and one the execution's end stopped.
 */
function stepStatus(state: ExecutionState, step: StepSummary): StepView['status'] {
  if (step.status !== 'RUNNING') return step.status;
  if (state.status !== 'RUNNING') return 'CANCELLED';
  const run = state.runs[step.lastRunId];
  if (!run || run.loopId !== undefined) return 'RUNNING';
  const timers = Object.values(state.timers).filter((timer) => timer.runId === run.runId && !timer.fired);
  if (timers.some((timer) => timer.purpose === 'retry')) return 'PENDING';
  if (timers.length > 0) return 'WAITING';
  const latest = run.commandIds.at(-1);
  if (latest === undefined) return 'WAITING';
  return state.commands[latest]?.status === 'ISSUED' ? 'PENDING' : 'RUNNING';
}

/**
 * Steps by their latest entry, oldest first. The state keeps them in an
 * object, whose key order is not the order they ran in once it has been
 * through a jsonb column (jsonb orders keys by length). Run ids are minted
 * in the order steps are entered, finer than an event time's millisecond.
 */
function inExecutionOrder(steps: StepSummary[]): StepSummary[] {
  return steps.sort((a, b) => {
    const [x, y] = [BigInt(a.lastRunId), BigInt(b.lastRunId)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
