import type {
  ChunkOrigin,
  CommandStatus,
  EventError,
  TimerPurpose,
  ExecutionStatus,
  Json,
  JsonObject,
  PayloadRef,
  RowOutcome,
} from '../event-payloads';
import { liveWork } from './live-work';

/** One activation of a step (a loop-back re-entry is a new run). */
export interface StepRun {
  runId: string;
  step: string;
  /** 1 for the first entry of the step, 2 for the next, ... */
  activation: number;
  status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  /** Runs whose arcs brought the execution here (several after a fan-in). */
  arrivals: string[];
  commandIds: string[];
  /** Attempts of the step's command so far. */
  attempts: number;
  loopId?: string;
  /** A run an `on: call.partial` arc started: the chunk it is for. */
  chunk?: ChunkOrigin;
  /**
   * A streaming run: how many chunks it streamed (the highest index + 1) and
   * the command that streamed the newest. A re-run of its command streams
   * again from chunk 0; only chunks past the count are new.
   */
  streamed?: { chunks: number; commandId: string };
  startedAt: string;
  completedAt?: string;
  result?: Json;
  resultRef?: PayloadRef;
  error?: EventError;
}

/** What the API shows per step: its latest run. */
export interface StepSummary {
  step: string;
  status: StepRun['status'];
  runs: number;
  attempts: number;
  lastRunId: string;
  startedAt: string;
  completedAt?: string;
}

export interface CommandState {
  commandId: string;
  step: string;
  runId: string;
  kind: string;
  attempt: number;
  maxAttempts: number;
  status: CommandStatus;
  workerId?: string;
  leaseUntil?: string;
  issuedAt: string;
  completedAt?: string;
  error?: EventError;
  loopId?: string;
  iteration?: number;
  /**
   * Issued to run alone on its worker (its run lost a worker before), and
   * still running alone (its worker lets others beside it after a while and
   * says so): a death now is its own.
   */
  runAlone?: boolean;
  /** Its lease ran out while its worker ran it (`command.abandoned` with `worker_lost`). */
  lost?: boolean;
}

export interface TimerState {
  timerId: string;
  purpose: TimerPurpose;
  step: string;
  runId: string;
  dueAt: string;
  fired: boolean;
  /** Retry timers: the attempt to issue when the timer fires. */
  attempt?: number;
}

/**
 * A terminal frame, as compact as its `frame.committed`: its row count and
 * only the rows that failed, so that a loop's state grows with its frames and
 * failures, not with its rows. A failed frame has no rows.
 */
export interface FrameOutcome {
  frameIndex: number;
  status: 'COMMITTED' | 'FAILED';
  rowCount: number;
  /** The rows that failed (collection index and error); every other row succeeded. */
  failedRows: RowOutcome[];
  results?: Json[];
  outputRef?: PayloadRef;
  error?: EventError;
}

/**
 * One item of a fan-out loop (DSL.md s4.2): its latest command. RETRYING: the
 * command failed or lost its lease with runs left, and a new command is
 * due; COMPLETED and FAILED are terminal.
 */
export interface ShardState {
  commandId: string;
  status: 'RUNNING' | 'RETRYING' | 'COMPLETED' | 'FAILED';
  result?: Json;
  resultRef?: PayloadRef;
  error?: EventError;
}

export interface LoopState {
  loopId: string;
  step: string;
  runId: string;
  epoch: number;
  stageId: string;
  mode: 'sequential' | 'parallel' | 'cursor';
  maxInFlight: number;
  /** Items in the collection; null for cursor loops until they are exhausted. */
  size: number | null;
  collection?: Json[];
  collectionRef?: PayloadRef;
  /** Frames the stage was cut into; null while a cursor stage is still minting frames. */
  frameCount: number | null;
  /** Frames claimed and not yet terminal, by frame id. */
  inFlight: Record<string, { frameIndex?: number; workerId: string; leaseUntil: string; attempt: number }>;
  /** Terminal frames by frame index. */
  frames: Record<number, FrameOutcome>;
  /** A fan-out loop's items by collection index, each run as commands of its own (no frames). */
  shards?: Record<number, ShardState>;
  succeededRows: number;
  failedRows: number;
  status: 'RUNNING' | 'DONE';
  doneStatus?: 'complete' | 'partial';
}

/** A `signal.received` no `wait` has consumed yet. */
export interface PendingSignal {
  eventId: string;
  payload: Json;
  receivedAt: string;
}

/** The state of one execution, folded from its events by `applyEvent`. */
export interface ExecutionState {
  executionId: string;
  tenantId: string;
  organizationId: string;
  path: string;
  version: number;
  catalogId: string;
  parentExecutionId: string | null;
  parentCommandId: string | null;
  status: ExecutionStatus;
  workload: JsonObject;
  /** Execution variables: the workload plus every `set: ctx.*`. */
  ctx: JsonObject;
  /** The latest result of each step, inline or by reference. */
  results: Record<string, { value?: Json; ref?: PayloadRef }>;
  runs: Record<string, StepRun>;
  steps: Record<string, StepSummary>;
  /** Arrivals not yet consumed: target step -> the runs whose arcs fired toward it. */
  pending: Record<string, string[]>;
  commands: Record<string, CommandState>;
  timers: Record<string, TimerState>;
  loops: Record<string, LoopState>;
  /** The step that completed last (the execution result when no final_step is set). */
  lastCompletedStep: string | null;
  /** Signals received and not yet consumed, by name, oldest first (absent until the first signal). */
  signals?: Record<string, PendingSignal[]>;
  /** The execution this one re-runs, and from where (absent for any other start). */
  rerunOf?: { executionId: string; fromStep?: string; asOfEventId?: string; asOfPosition?: number };
  /** The schedule and fire time that started the execution (absent when something else did). */
  schedule?: { scheduleId: string; fireTime: string; manual?: boolean };
  result?: Json;
  resultRef?: PayloadRef;
  error?: EventError;
  startedAt: string;
  completedAt?: string;
  lastEventId: string;
  eventCount: number;
}

export function activeRuns(state: ExecutionState): StepRun[] {
  return Object.keys(liveWork(state).runs).map((runId) => state.runs[runId]!);
}

export function isTerminal(state: ExecutionState): boolean {
  return state.status !== 'RUNNING';
}
