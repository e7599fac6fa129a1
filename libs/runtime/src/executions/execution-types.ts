import type { ExecutionStatus, Json, JsonObject, PayloadRef } from '@noetl/event-kernel';
import type { PlaybookRef } from '../catalog/catalog-types';

export interface StartExecutionRequest extends PlaybookRef {
  /** Deep-merged over the playbook's workload; request values win. */
  payload?: JsonObject;
}

/** POST /api/executions/{id}/rerun. */
export interface RerunRequest {
  /** The step to run from; the original's results of the steps before it are copied. Absent: from the start. */
  from_step?: string;
  /** Deep-merged over the original's workload (and its ctx, from a step). */
  payload?: JsonObject;
}

export interface StartedExecution {
  execution_id: string;
  status: ExecutionStatus;
}

/** GET /api/executions/{id} (DESIGN.md s6). */
export interface ExecutionDetail {
  execution_id: string;
  parent_execution_id: string | null;
  path: string;
  version: number;
  status: ExecutionStatus;
  started_at: string;
  completed_at: string | null;
  workload: JsonObject;
  result: Json | null;
  result_ref?: PayloadRef | null;
  error: { step: string | null; kind: string; message: string } | null;
  steps: StepView[];
  loops: LoopView[];
  /** The schedule and fire time that started it; null when something else did. */
  schedule: { schedule_id: string; fire_time: string; manual: boolean } | null;
  /** The execution this one re-runs, the step it ran from (null: the start) and the original's last event it copied; null when it is no rerun. */
  rerun_of: { execution_id: string; from_step: string | null; as_of_event_id: string | null } | null;
  /** The executions that re-run this one, oldest first. */
  reruns: string[];
}

export const STEP_VIEW_STATUSES = ['PENDING', 'RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;

export interface StepView {
  step: string;
  /**
   * Its latest run: PENDING before a worker claims its command (or while a
   * retry is due), WAITING for a signal or a sleep, CANCELLED when the
   * execution ended while it ran.
   */
  status: (typeof STEP_VIEW_STATUSES)[number];
  attempts: number;
  started_at: string;
  completed_at: string | null;
}

export interface LoopView {
  step: string;
  loop_id: string;
  total: number | null;
  done: number;
  failed: number;
  completed: boolean;
}

export interface ExecutionSummary {
  execution_id: string;
  parent_execution_id: string | null;
  path: string | null;
  version: number | null;
  status: ExecutionStatus;
  started_at: string | null;
  completed_at: string | null;
}

/** What narrows a list of executions and its counts per status. */
export interface ExecutionFilter {
  path?: string;
  /** Only the children of this execution. */
  parent?: string;
  /** Started at or after this ISO time. */
  started_after?: string;
  /** Started before this ISO time. */
  started_before?: string;
}

export type ExecutionCounts = Record<ExecutionStatus, number>;

export interface ListExecutionsQuery extends ExecutionFilter {
  status?: ExecutionStatus;
  limit?: number;
  /** The `next_cursor` of the previous page. */
  cursor?: string;
}

export interface ExecutionPage {
  executions: ExecutionSummary[];
  next_cursor: string | null;
}

export interface ListEventsQuery {
  /** Events after this event id (exclusive), in ledger order. */
  after?: string;
  /** Events after this many of the execution's events (its stream position; at most one of `after` and this). */
  afterPosition?: number;
  limit?: number;
  /** Only these event types. */
  type?: string[];
}

/** One event as GET /api/executions/{id}/events shows it. */
export interface EventView {
  event_id: string;
  event_type: string;
  /** Its place in the execution's ledger: 1 for the first event (a replay's `as_of_position`). */
  position: number;
  step: string | null;
  status: string | null;
  command_id: string | null;
  frame_id: string | null;
  loop_id: string | null;
  payload: Json;
  payload_ref: PayloadRef | null;
  created_at: string;
}

export interface EventPage {
  events: EventView[];
  /** Pass as `after` for the next page; null when this page was the last one so far. */
  next_after: string | null;
}

/** A signal appended to an execution's ledger (`POST /api/executions/{id}/signals/{name}`). */
export interface DeliveredSignal {
  execution_id: string;
  signal: string;
  /** The `signal.received` event (the first one, for a repeated idempotency key). */
  event_id: string;
}

export interface CancelRequest {
  reason?: string;
  /** Who asked (an admin or user name). */
  by?: string;
}
