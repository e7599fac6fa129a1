import type { EventType } from './event-types';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A content-addressed payload in the payload store (DESIGN.md invariant 6). */
export interface PayloadRef {
  sha256: string;
  media_type: string;
  bytes: number;
  /** Arrow payloads: row count and schema digest. */
  rows?: number;
  schema_digest?: string;
  uri?: string;
}

/** A value either inline or, above the inline limit, by reference. */
export interface ValueOrRef {
  value?: Json;
  ref?: PayloadRef;
}

/**
 * A line user code printed (python's print, javascript's console), as a
 * command's terminal event keeps the last of them (the worker's tail),
 * scrubbed of the run's secrets: what `noetl logs` shows.
 */
export interface EventOutputLine {
  stream: 'stdout' | 'stderr';
  text: string;
}

/** One task run of a command (a pipeline has several), as its terminal event lists it. */
export interface EventCall {
  task: string;
  attempts: number;
  duration_ms: number;
  status: 'ok' | 'error';
  error?: EventError;
}

/** The classified error of a call, a step or an execution (mirrors DSL CallErrorInfo). */
export interface EventError {
  kind: string;
  message: string;
  retryable?: boolean;
  status?: number;
  code?: string;
  step?: string;
  expression?: string;
}

/** What a durable timer is for: a retry's backoff, a `sleep`, or a `wait`'s timeout. */
export type TimerPurpose = 'retry' | 'sleep' | 'wait';

export type ExecutionStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
export type CommandStatus = 'ISSUED' | 'CLAIMED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'ABANDONED' | 'CANCELLED';
export type FrameStatus = 'PENDING' | 'CLAIMED' | 'RUNNING' | 'COMMITTED' | 'FAILED' | 'CANCELLED';

/** One row outcome inside a committed frame. */
export interface RowOutcome {
  index: number;
  status: 'ok' | 'error';
  error?: EventError;
}

/**
 * The chunk of a streamed result an `on: call.partial` arc started a step run
 * for (DSL.md s3 `stream`): where it came from, and its rows by reference.
 */
export interface ChunkOrigin {
  step: string;
  run_id: string;
  command_id: string;
  chunk_index: number;
  has_more: boolean;
  row_count: number;
  rows_ref: PayloadRef;
}

/** Where a rerun came from: the original execution and the point of its ledger it copies. */
export interface RerunOrigin {
  execution_id: string;
  /** The step it runs from; absent when it re-runs from the start. */
  from_step?: string;
  /** The original's last event before `from_step` was first entered: replayed there, the original shows the copied state. */
  as_of_event_id?: string;
  /** That event's stream position. */
  as_of_position?: number;
}

/** The payload type of every event type: a handler cannot read the wrong shape. */
export interface EventPayloads {
  [EventType.ExecutionStarted]: {
    path: string;
    version: number;
    catalog_id: string;
    workload: JsonObject;
    parent_execution_id?: string;
    parent_command_id?: string;
    /** A rerun (`POST /api/executions/{id}/rerun`): the execution it re-runs, and from where. */
    rerun_of?: RerunOrigin;
    /**
     * A rerun from a step: the state it copies, so that its own ledger alone
     * rebuilds it (the original may be purged since): every step result the
     * original held at `rerun_of.as_of_event_id`, and its ctx then with the
     * rerun's payload merged over it.
     */
    seed?: { results: Record<string, ValueOrRef>; ctx: JsonObject };
  };
  [EventType.ExecutionCompleted]: { result?: Json; result_ref?: PayloadRef };
  [EventType.ExecutionFailed]: { error: EventError };
  [EventType.ExecutionCancelled]: { reason?: string; by?: string };
  [EventType.StepEnter]: { step: string; run_id: string; activation: number; arrivals?: string[]; chunk?: ChunkOrigin };
  [EventType.StepExit]: {
    step: string;
    run_id: string;
    status: 'COMPLETED' | 'FAILED';
    result?: Json;
    result_ref?: PayloadRef;
    error?: EventError;
    /** Targets whose arcs fired (routing happens in the same decision as the exit). */
    next?: string[];
    /** A `wait` step: the `signal.received` event it consumed (its payload is the result). */
    signal?: { name: string; event_id: string };
  };
  [EventType.CommandIssued]: {
    command_id: string;
    step: string;
    run_id: string;
    kind: string;
    attempt: number;
    max_attempts: number;
    /** What the worker needs to run the call: the task(s), rendered input and render context (refs for large values). */
    spec: JsonObject;
    loop_id?: string;
    iteration?: number;
  };
  /**
   * `started`: the work began with the claim (every claim since `command.started` stopped being
   * written beside it: the two said nothing apart). A ledger written before holds both events.
   */
  [EventType.CommandClaimed]: { worker_id: string; lease_until: string; attempt: number; started?: true };
  /** Written by older versions right after `command.claimed`; folded still, written no more. */
  [EventType.CommandStarted]: { worker_id: string };
  /** `alone: false`: a command issued to run alone now runs beside other work on its worker. */
  [EventType.CommandHeartbeat]: { worker_id: string; lease_until: string; alone?: boolean };
  /**
   * `calls`: the tool calls the command ran (a pipeline's tasks, a call's
   * pages folded), in its own event. Ledgers written before list them as
   * `call.done` / `call.error` events ahead of it; neither changes the fold.
   */
  [EventType.CommandCompleted]: {
    result?: Json;
    result_ref?: PayloadRef;
    ctx?: JsonObject;
    duration_ms?: number;
    calls?: EventCall[];
    output?: EventOutputLine[];
  };
  [EventType.CommandFailed]: { error: EventError; ctx?: JsonObject; duration_ms?: number; calls?: EventCall[]; output?: EventOutputLine[] };
  /**
   * `worker_lost`: the reaper found the lease run out while the command ran,
   * with no report: its worker died (a crash, an OOM kill, a step that took
   * the process down) or stopped answering. The planner counts these deaths
   * (DSL.md s3: suspected poison).
   */
  [EventType.CommandAbandoned]: { worker_id?: string; lease_until?: string; attempt: number; reason: string; worker_lost?: boolean };
  [EventType.CommandReleased]: { worker_id: string; attempt: number; reason: string };
  [EventType.CommandCancelled]: { reason?: string };
  [EventType.CallDone]: { task: string; attempts: number; duration_ms: number; result?: Json; result_ref?: PayloadRef };
  [EventType.CallError]: { task: string; attempts: number; duration_ms: number; error: EventError };
  /** Chunk `chunk_index` (from 0) of a streamed result; its rows are always in the payload store. */
  [EventType.CallPartial]: {
    task: string;
    chunk_index: number;
    has_more: boolean;
    row_count: number;
    columns: string[];
    rows_ref: PayloadRef;
  };
  [EventType.RetryScheduled]: {
    step: string;
    run_id: string;
    failed_command_id: string;
    attempt: number;
    due_at: string;
    delay_ms: number;
    timer_id: string;
    error: EventError;
  };
  /** A durable delay that is not a retry: the `sleep` tool, or the timeout of a `wait`. */
  [EventType.TimerScheduled]: { timer_id: string; purpose: 'sleep' | 'wait'; step: string; run_id: string; due_at: string };
  [EventType.TimerFired]: { timer_id: string; purpose: TimerPurpose };
  [EventType.CtxUpdated]: { set: JsonObject; step?: string };
  [EventType.LoopStarted]: {
    loop_id: string;
    step: string;
    run_id: string;
    epoch: number;
    size: number | null;
    collection?: Json[];
    collection_ref?: PayloadRef;
    mode: 'sequential' | 'parallel' | 'cursor';
    max_in_flight: number;
    stage_id: string;
  };
  [EventType.LoopDone]: {
    loop_id: string;
    step: string;
    run_id: string;
    status: 'complete' | 'partial';
    total: number;
    succeeded: number;
    failed: number;
    /** Every row's result in collection order; absent when the step's result went by `result_ref`. */
    results?: Json[];
    /**
     * A large loop whose results no template reads: the step's result
     * `{results, stats}` as a manifest of its frames' outputs
     * (`LOOP_RESULT_MEDIA_TYPE`), so nothing holds every result at once.
     */
    result_ref?: PayloadRef;
  };
  [EventType.StageOpened]: {
    stage_id: string;
    loop_id: string;
    step: string;
    kind: 'loop' | 'fanout' | 'reduce';
    frame_count: number | null;
    frame_policy: JsonObject;
  };
  [EventType.StageClosed]: { stage_id: string; loop_id: string; committed: number; failed: number };
  [EventType.FrameDispatched]: { frame_id: string; stage_id: string; worker_id: string; lease_until: string; attempt: number };
  /** Written by older versions right after `frame.dispatched`, with the same lease; folded still, written no more. */
  [EventType.FrameStarted]: { frame_id: string; worker_id: string; lease_until: string };
  [EventType.FrameHeartbeat]: { frame_id: string; worker_id: string; lease_until: string };
  /**
   * Schema version 2: the rows are `first_index` .. `first_index + row_count - 1`
   * of the collection and only the failed ones are listed (version 1 listed
   * every row; its upcaster lifts it, libs/event-kernel/src/upcasters).
   */
  [EventType.FrameCommitted]: {
    frame_id: string;
    stage_id: string;
    frame_index: number;
    row_count: number;
    /** Collection index of the frame's first row. */
    first_index: number;
    /** The rows that failed, with their error; every other row succeeded. */
    failed_rows: RowOutcome[];
    /** The rows' results in row order, inline when small (else read them from output_ref). */
    results?: Json[];
    output_ref?: PayloadRef;
    ctx?: JsonObject;
  };
  [EventType.FrameFailed]: { frame_id: string; stage_id: string; frame_index: number; error: EventError; attempt: number };
  [EventType.FrameAbandoned]: { frame_id: string; worker_id?: string; attempt: number; reason: string };
  [EventType.AdminAction]: {
    actor: string;
    action: string;
    target_type: 'execution' | 'command' | 'frame';
    target_id: string;
    reason?: string;
  };
  [EventType.SignalReceived]: { name: string; payload: Json };
  [EventType.ScheduleFired]: {
    schedule_id: string;
    /** The nominal fire time (ISO); for a manual trigger, the time of the trigger. */
    fire_time: string;
    /** True when `POST /api/schedules/{id}/trigger` started it rather than the schedule's own time. */
    manual?: boolean;
  };
}

export type PayloadOf<T extends keyof EventPayloads> = EventPayloads[T];

/**
 * A command as `command.issued` states it: the fields its row, an offer and
 * a claim carry over from the event (each adds its own), written here once.
 */
export type IssuedCommandFields = Pick<
  PayloadOf<typeof EventType.CommandIssued>,
  'command_id' | 'step' | 'run_id' | 'kind' | 'attempt' | 'max_attempts' | 'spec'
>;
