import type { ResultViews } from '@noetl/dsl';
import type { EventCall, EventError, EventOutputLine, IssuedCommandFields, Json, JsonObject } from '@noetl/event-kernel';
import type { WorkerReport } from '@noetl/storage';
import type { DatabaseIdentity } from '@noetl/tools';
import type { Holder } from './lease-token';
import type { StreamBacklog } from './stream-backlog';

export type { Holder } from './lease-token';
export type { StreamBacklog } from './stream-backlog';

/**
 * The worker's side of the runtime (DESIGN.md s4 step 4, s6 "worker control
 * plane"). Two adapters: `LocalControlPlane` (in-process, on the database)
 * and `HttpControlPlane` (over the REST endpoints, for a separate worker
 * process). Every method is idempotent for the worker that holds the lease,
 * and a report after the command is terminal throws RuntimeError
 * `already_terminal` (HTTP 409) and changes nothing.
 */
export interface ControlPlane {
  /**
   * Takes the lease on an ISSUED command: appends `command.claimed`, which
   * says the work started too. Throws `not_found`, `already_claimed` (another worker
   * holds it) or `already_terminal`.
   */
  claim(commandId: string, request: ClaimRequest): Promise<ClaimedCommand>;
  /** Extends the lease. `cancelled: true` tells the worker to abort. Throws `lease_lost` when the worker no longer holds it. */
  heartbeat(commandId: string, request: LeaseRequest): Promise<HeartbeatResult>;
  /** `call.*` events for the calls, then `command.completed` (a large result goes to the payload store). */
  complete(commandId: string, request: CompleteRequest): Promise<void>;
  /** `call.*` events for the calls, then `command.failed` with the error. */
  fail(commandId: string, request: FailRequest): Promise<void>;
  /**
   * A `playbook` command starts its child execution (idempotent per command)
   * and gives up its lease: the command stays RUNNING until the child's
   * terminal event completes or fails it (no worker waits, nothing polls).
   */
  startChild(commandId: string, request: StartChildRequest): Promise<{ execution_id: string }>;
  /**
   * A `playbook` call inside a pipeline or a loop body: starts the child
   * (one per holder and key) while the worker keeps its own lease and waits
   * for `childOutcome`.
   */
  startNestedChild(request: NestedChildRequest): Promise<{ execution_id: string }>;
  /** Where a child stands: RUNNING, or its outcome as the parent's call sees it (see `childOutcome` in scheduler/). */
  childOutcome(executionId: string, request: ChildOutcomeRequest): Promise<ChildOutcomeView>;
  /** `call.done` / `call.error` events for calls of a command the worker holds, ahead of its terminal report. */
  recordCalls(commandId: string, request: RecordCallsRequest): Promise<void>;
  /**
   * One chunk of the command's streamed result (DSL.md s3 `stream`): its rows
   * go to the payload store and `call.partial` carries their ref. Idempotent
   * per command and chunk index (a retried report appends nothing more).
   * Answers the stream's backlog with this chunk counted: the worker reads
   * no further while it is at NOETL_STREAM_MAX_PENDING_CHUNKS.
   */
  reportPartial(commandId: string, request: PartialRequest): Promise<StreamBacklog>;
  /**
   * The chunks of the command's stream not yet consumed (`pending_chunks`),
   * for the worker that holds it and waits for room (backpressure). Throws
   * `lease_lost` / `already_terminal` like a heartbeat: a stream nobody
   * consumes any more stops.
   */
  streamBacklog(commandId: string, request: Holder): Promise<StreamBacklog>;
  /**
   * Gives an unrun (or abandoned mid-run) command back: `command.released`,
   * claimable again at once and no attempt spent (a worker shutting down).
   */
  release(commandId: string, request: LeaseRequest): Promise<void>;
  /** A worker's capacity and status (it registers with the first report); the scheduler offers work by it. */
  reportWorker(report: WorkerReport): Promise<void>;
  /**
   * Which database the ledger is, as its server says: the worker refuses it
   * to postgres steps (and its cluster to a role with power over it), with
   * no connection of its own to it.
   */
  ledgerIdentity(): Promise<DatabaseIdentity>;
  /** The decrypted data of a credential, for the worker that holds the command's lease (never logged, never in events). */
  resolveCredential(commandId: string, request: CredentialRequest): Promise<ResolvedCredential>;

  /**
   * Takes the next claimable frame of a stage (DESIGN.md "Loops are stages
   * of frames"): the lowest pending index, one at a time for `sequential`,
   * up to `max_in_flight` for `parallel`. Appends `frame.dispatched` (the
   * frame runs from there). Null when nothing is claimable now.
   */
  claimFrame(stageId: string, request: ClaimRequest): Promise<ClaimedFrame | null>;
  /** Extends the frame's lease (`frame.heartbeat`); `cancelled` when the execution ended. Throws `lease_lost` / `already_terminal`. */
  heartbeatFrame(frameId: string, request: LeaseRequest): Promise<HeartbeatResult>;
  /** ONE `frame.committed` with the row outcomes and the rows' results as Arrow in the payload store. */
  commitFrame(frameId: string, request: CommitFrameRequest): Promise<void>;
  /** `frame.failed`: the frame could not run at all (its rows count as failed). */
  failFrame(frameId: string, request: FailRequest): Promise<void>;
  /** Gives a frame back whole (`frame.abandoned`, its claim refunded): claimable again at once. */
  releaseFrame(frameId: string, request: LeaseRequest): Promise<void>;
  /** `resolveCredential` for the worker that holds the frame's lease. */
  resolveFrameCredential(frameId: string, request: CredentialRequest): Promise<ResolvedCredential>;
}

export interface ClaimedFrame {
  frame_id: string;
  /** The secret every report on this frame presents: only its claimer received it. */
  lease_token: string;
  stage_id: string;
  loop_id: string;
  execution_id: string;
  step: string;
  /** The loop step's run (absent from an older API): the frame's span is a child of the run's. */
  run_id?: string;
  frame_index: number;
  attempt: number;
  lease_until: string;
  /** The lease the frame was given; heartbeat well within it. */
  lease_ms: number;
  /** The frame's rows, in collection order. */
  rows: Json[];
  /** Collection index of `rows[0]`. */
  first_index: number;
  /** Collection size (null for a cursor loop). */
  total: number | null;
  /** The loop body: `loopBodySpec` (tool, input, retry, iterator, process, sink), unrendered. */
  spec: JsonObject;
  scope: JsonObject;
  result_views: ResultViews;
}

export interface FrameRowReport {
  /** Collection index. */
  index: number;
  status: 'ok' | 'error';
  result?: Json;
  error?: EventError;
}

/** A frame's rows' outcomes and ctx writes; its calls are not reported (a row's calls are no event: DESIGN.md "Loops are stages of frames"). */
export interface CommitFrameRequest extends Holder {
  rows: FrameRowReport[];
  ctx?: JsonObject;
}

export interface NestedChildRequest extends Holder {
  /** The command or frame the calling worker holds (its lease token is `lease_token`). */
  holder: { kind: 'command' | 'frame'; id: string };
  /** Distinct per call within the holder's attempt; the same key returns the same child. */
  key: string;
  path: string;
  version?: number;
  payload?: JsonObject;
}

/**
 * Where a child of a `playbook` call stands, asked by the worker that holds
 * the command or frame whose call started it (its lease proves it): the
 * outcome of any other execution is not the worker's to read.
 */
export interface ChildOutcomeRequest extends Pick<NestedChildRequest, 'worker_id' | 'lease_token' | 'holder'> {
  /** The child's step whose result the call returns. */
  return_step?: string;
}

export type ChildOutcomeView = { status: 'RUNNING' } | { status: 'COMPLETED'; result: Json } | { status: 'FAILED'; error: EventError };

export interface PartialRequest extends Holder {
  /** From 0, in the order the chunks were read. */
  chunk_index: number;
  /** False for the last chunk. */
  has_more: boolean;
  columns: string[];
  rows: JsonObject[];
}

export interface RecordCallsRequest extends Holder {
  calls: EventCall[];
}

export interface CredentialRequest extends Holder {
  name: string;
}

export interface ResolvedCredential {
  type: string;
  data: JsonObject;
}

export interface LeaseRequest extends Holder {
  /** Default 30 s. */
  lease_ms?: number;
  /**
   * `false` on the heartbeat of a command its worker was running alone
   * (`run_alone`) and now runs beside other work: a death from here on is
   * no longer known to be its own.
   */
  alone?: boolean;
}

export interface ClaimRequest {
  worker_id: string;
  /** Default 30 s. */
  lease_ms?: number;
  /** The token of a lease this worker already holds: a repeated claim then returns that lease; without it, `already_claimed`. */
  lease_token?: string;
  /** The tool kinds the worker runs (NOETL_WORKER_TOOLS); absent: every kind. Work needing another is refused (`tool_not_allowed`). */
  tools?: string[];
  /** The worker's pool (NOETL_WORKER_POOL); absent: none. Work of another pool (or, without one, of any pool) is refused (`wrong_pool`). */
  pool?: string;
}

/** A command as its claimer gets it: the command `command.issued` states (its spec unrendered: `readCallSpec`), its lease and its render scope. */
export interface ClaimedCommand extends IssuedCommandFields {
  /** The secret every report on this command presents: only its claimer received it. */
  lease_token: string;
  execution_id: string;
  lease_until: string;
  /** The render scope as plain JSON (results by reference resolved), built at claim time. */
  scope: JsonObject;
  /** The scope names that are step results: the worker restores their views (`withResultViews`). */
  result_views: ResultViews;
  /** A fan-out shard (DSL.md s4.2): the worker runs the loop body (`spec`) for this one item. */
  shard?: ShardItem;
}

/** The item a fan-out shard's command runs the loop body for. */
export interface ShardItem {
  loop_id: string;
  /** Collection index of the item. */
  index: number;
  /** Collection size. */
  total: number | null;
  item: Json;
}

export interface HeartbeatResult {
  lease_until: string;
  /** The command (or its execution) was cancelled: abort and report nothing. */
  cancelled: boolean;
}

export interface CompleteRequest extends Holder {
  result?: Json;
  /** `set: ctx.*` writes, by dotted key, in order. */
  ctx?: JsonObject;
  calls?: EventCall[];
  duration_ms?: number;
  /** The last lines user code printed (the worker's OutputTail). */
  output?: EventOutputLine[];
}

export interface FailRequest extends Holder {
  error: EventError;
  ctx?: JsonObject;
  calls?: EventCall[];
  duration_ms?: number;
  output?: EventOutputLine[];
}

export interface StartChildRequest extends Holder {
  path: string;
  version?: number;
  payload?: JsonObject;
}

export const DEFAULT_LEASE_MS = 30_000;

/** A frame's lease when its policy names none (`frame.lease_seconds`). */
export const DEFAULT_FRAME_LEASE_MS = 120_000;
