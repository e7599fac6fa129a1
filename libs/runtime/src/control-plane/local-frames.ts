import { EventType, type EventDraft, type EventTypeName, type Json, type JsonObject, type RowOutcome } from '@noetl/event-kernel';
import { loopBodySpec } from '@noetl/dsl';
import { putFrameOutput, type FrameOutputRow, type FrameRow, type LockedFrame, type LockedStage, type PendingFrame, type Queryable } from '@noetl/storage';
import type { HandOver } from '../scheduler/eager-claims';
import { notifyExecution } from '../bus/bus';
import { runsAll } from '../bus/offers';
import { holdsLease, newLeaseToken, type Holder } from './lease-token';
import { RuntimeError, notFound } from '../runtime-error';
import type { LocalControlPlaneDeps } from './local-control-plane';
import {
  DEFAULT_FRAME_LEASE_MS,
  type ClaimRequest,
  type ClaimedFrame,
  type ClaimedCommand,
  type CommitFrameRequest,
  type FailRequest,
  type HeartbeatResult,
  type LeaseRequest,
} from './control-plane';
import { frameLeaseMs } from './frame-policy';
import { loopCollection } from './loop-collection';
import { reportAndPlan } from './report-and-plan';

type ScopeOf = (executionId: string, spec: JsonObject) => Promise<Pick<ClaimedCommand, 'scope' | 'result_views'>>;

/** A frame leased in a claim's transaction, before it is assembled for its worker. */
interface FrameClaim {
  stage: LockedStage;
  frame: PendingFrame;
  leaseMs: number;
  leaseUntil: string;
  attempt: number;
  token: string;
}

/**
 * The frame side of the in-process control plane (DESIGN.md "Loops are
 * stages of frames"). Same discipline as commands: the execution's stream
 * lock first, then the stage or frame row; a frame takes one terminal
 * report; nothing is appended after the execution's end.
 */
export class LocalFrames {
  constructor(
    private readonly deps: LocalControlPlaneDeps,
    private readonly scopeOf: ScopeOf,
  ) {}

  async claim(stageId: string, request: ClaimRequest): Promise<ClaimedFrame | null> {
    const { db } = this.deps;
    const claimed = await db.transaction((q) => this.claimWithin(q, stageId, request));
    return claimed && this.assemble(claimed);
  }

  /**
   * The stage's next claimable frame, leased to `request.worker_id` in `q`'s
   * transaction; null when none is claimable now. `executionId`: the
   * stage's execution, when the caller knows it.
   */
  private async claimWithin(q: Queryable, stageId: string, request: ClaimRequest, executionId?: string): Promise<FrameClaim | null> {
    const { ledger, frameRows, stageRows } = this.deps;
    const stage = await stageRows.lock(q, ledger.scope, stageId, (execution) => ledger.lockStream(q, execution), executionId);
    if (!stage) throw notFound('stage', stageId);
    if (request.tools && !runsAll({ tools: request.tools }, stage.tools)) {
      throw new RuntimeError('tool_not_allowed', `stage ${stageId} runs ${stage.tools.join(', ')}; worker ${request.worker_id} runs only ${request.tools.join(', ')}`);
    }
    if (stage.status !== 'OPEN' || stage.execution_ended) return null;
    const { held, next } = await frameRows.claimable(q, stageId);
    if (held >= stage.max_in_flight) return null;
    const frame = next ?? (stage.mode === 'cursor' ? await this.mintCursorFrame(q, stage) : undefined);
    if (!frame) return null;
    const leaseMs = request.lease_ms ?? frameLeaseMs(stage.frame_policy, DEFAULT_FRAME_LEASE_MS);
    const leaseUntil = new Date(ledger.now().getTime() + leaseMs).toISOString();
    const attempt = frame.attempts + 1;
    const token = newLeaseToken();
    const where = { executionId: stage.execution_id, step: stage.step_name, loopId: stage.loop_id, stageId, frameId: frame.frame_id };
    // The frame starts with its dispatch (its worker holds it from here); no `frame.started` beside it.
    await ledger.append(q, [draft(where, EventType.FrameDispatched, { frame_id: frame.frame_id, stage_id: stageId, worker_id: request.worker_id, lease_until: leaseUntil, attempt })]);
    await frameRows.markRunning(q, frame.frame_id, { workerId: request.worker_id, leaseUntil, attempts: attempt, tokenHash: token.hash });
    return { stage, frame, leaseMs, leaseUntil, attempt, token: token.token };
  }

  /** A claimed frame as its worker receives it (after its claim committed): its rows, loop body and render scope. */
  private async assemble(claimed: FrameClaim): Promise<ClaimedFrame> {
    const { stage, frame } = claimed;
    const stageId = stage.stage_id;
    const { db, states, catalog, payloads } = this.deps;
    const { catalogId, loop } = await states.read(db, stage.execution_id, (state) => {
      const found = state?.loops[stage.loop_id];
      if (!state || !found) throw new Error(`stage ${stageId} has no loop ${stage.loop_id} in its execution's state`);
      // What the frame needs of the loop; the collection is only sliced below, never changed.
      return { catalogId: state.catalogId, loop: { collection: found.collection, collectionRef: found.collectionRef, size: found.size } };
    });
    const playbook = await catalog.playbook(catalogId);
    const step = playbook.steps.find((candidate) => candidate.name === stage.step_name);
    if (!step) throw new Error(`stage ${stageId} names step ${stage.step_name}, which its playbook lacks`);
    const first = Number(frame.cursor.first ?? 0);
    const collection = await loopCollection(loop, payloads);
    const spec = loopBodySpec(playbook, step);
    return {
      frame_id: frame.frame_id,
      lease_token: claimed.token,
      stage_id: stageId,
      loop_id: stage.loop_id,
      execution_id: stage.execution_id,
      step: stage.step_name,
      frame_index: frame.frame_index,
      attempt: claimed.attempt,
      lease_until: claimed.leaseUntil,
      lease_ms: claimed.leaseMs,
      rows: stage.mode === 'cursor' ? [] : structuredClone(collection.slice(first, first + frame.row_count)),
      first_index: first,
      total: loop.size,
      spec,
      ...(await this.scopeOf(stage.execution_id, spec)),
    };
  }

  async heartbeat(frameId: string, request: LeaseRequest): Promise<HeartbeatResult> {
    const { db, ledger } = this.deps;
    return db.transaction(async (q) => {
      const frame = await this.locked(q, frameId);
      if (frame.execution_ended) return { lease_until: ledger.now().toISOString(), cancelled: true };
      this.assertHolder(frame, request);
      const leaseUntil = new Date(ledger.now().getTime() + (request.lease_ms ?? frameLeaseMs(frame.frame_policy, DEFAULT_FRAME_LEASE_MS))).toISOString();
      await ledger.append(q, [draft(where(frame), EventType.FrameHeartbeat, { frame_id: frameId, worker_id: request.worker_id, lease_until: leaseUntil })]);
      await this.deps.frameRows.setLease(q, frameId, leaseUntil);
      return { lease_until: leaseUntil, cancelled: false };
    });
  }

  async commit(frameId: string, request: CommitFrameRequest): Promise<void> {
    const { ledger, payloadStore, inlineLimitBytes } = this.deps;
    const rows = [...request.rows].sort((a, b) => a.index - b.index);
    // Content-addressed: a retried commit stores the same bytes once.
    const outputRef = await putFrameOutput(
      payloadStore,
      rows.map(({ error, ...row }): FrameOutputRow => ({ ...row, ...(error ? { error: { ...error } as Json } : {}) })),
      ledger.scope,
    );
    const results: Json[] = rows.map((row) => row.result ?? null);
    const inline = Buffer.byteLength(JSON.stringify(results)) <= inlineLimitBytes;
    let frame: LockedFrame | undefined;
    const report = async (q: Queryable): Promise<string> => {
      const locked = await this.lockedLive(q, frameId);
      this.assertHolder(locked, request);
      const failedRows: RowOutcome[] = rows.filter((row) => row.status !== 'ok').map((row) => ({ index: row.index, status: 'error', ...(row.error ? { error: row.error } : {}) }));
      const committed = draft(where(locked), EventType.FrameCommitted, {
        frame_id: frameId,
        stage_id: locked.stage_id,
        frame_index: locked.frame_index,
        row_count: rows.length,
        first_index: rows[0]?.index ?? 0,
        failed_rows: failedRows,
        ...(inline ? { results } : {}),
        output_ref: outputRef,
        ...(request.ctx && Object.keys(request.ctx).length > 0 ? { ctx: request.ctx } : {}),
      });
      // Deferred: it goes in with the next frame's dispatch or the scheduler's decisions, in one statement.
      const [appended] = await ledger.append(q, [committed], { defer: true });
      await this.deps.frameRows.markCommitted(q, frameId, { outputRef, rowCount: rows.length, eventId: appended?.event.event_id ?? null });
      frame = locked;
      return locked.execution_id;
    };
    const handed = await reportAndPlan(this.deps, frameId, report, (q) => this.nextFrameFor(q, frame!));
    // The stage's slot this frame held goes to its next frame: handed to this worker already, or offered.
    if (!handed) void this.deps.offers.stage({ stageId: frame!.stage_id, executionId: frame!.execution_id, slots: 1, kinds: frame!.tools });
  }

  /**
   * The stage's next frame, claimed in the commit's transaction for this
   * process's worker: the slot of the run that committed `done`, when it is
   * that worker's, else a free one (no offer, no claim round trip of its
   * own). Undefined when this process has no worker with a slot for it, or
   * no frame is claimable now. A frame whose assembly fails after the commit
   * is not run: its lease runs out and the reaper gives it back.
   */
  private async nextFrameFor(q: Queryable, done: LockedFrame): Promise<HandOver | undefined> {
    const reservation = this.deps.slots?.reserve(this.deps.ledger.scope, done.tools, done.frame_id);
    if (!reservation) return undefined;
    try {
      const claimed = await this.claimWithin(q, done.stage_id, { worker_id: reservation.workerId }, done.execution_id);
      if (!claimed) {
        reservation.cancel();
        return undefined;
      }
      // Assembled once the commit is in: the stream's lock, which every frame of the loop waits for, is not held meanwhile.
      return { committed: () => reservation.runFrame(() => this.assemble(claimed)), rolledBack: () => reservation.cancel() };
    } catch (error) {
      reservation.cancel();
      throw error;
    }
  }

  async fail(frameId: string, request: FailRequest): Promise<void> {
    const { db, ledger } = this.deps;
    const frame = await db.transaction(async (q) => {
      const locked = await this.lockedLive(q, frameId);
      this.assertHolder(locked, request);
      const [failed] = await ledger.append(q, [
        draft(where(locked), EventType.FrameFailed, {
          frame_id: frameId,
          stage_id: locked.stage_id,
          frame_index: locked.frame_index,
          error: request.error,
          attempt: locked.attempts,
        }),
      ]);
      await this.deps.frameRows.markFailed(q, frameId, failed?.event.event_id ?? null);
      return locked;
    });
    this.afterTerminal(frame);
  }

  async release(frameId: string, request: LeaseRequest): Promise<void> {
    const { db, ledger } = this.deps;
    const frame = await db.transaction(async (q) => {
      const locked = await this.lockedLive(q, frameId);
      this.assertHolder(locked, request);
      await ledger.append(q, [
        draft(where(locked), EventType.FrameAbandoned, { frame_id: frameId, worker_id: request.worker_id, attempt: locked.attempts, reason: 'released by its worker' }),
      ]);
      await this.deps.frameRows.release(q, frameId, { refundAttempt: true });
      return locked;
    });
    this.afterTerminal(frame);
  }

  /**
   * The frame's row; throws unless `holder` holds the frame's lease. Read
   * without a lock: it changes nothing, and a frame's every credential
   * look-up waiting for the stream's lock held up the loop's commits.
   */
  async held(frameId: string, holder: Holder): Promise<FrameRow> {
    const frame = this.live(frameId, await this.deps.frameRows.read(this.deps.db, this.deps.ledger.scope, frameId));
    this.assertHolder(frame, holder);
    return frame;
  }

  /** The scheduler plans the frame's end (or release); the stage's next frame is offered. */
  private afterTerminal(frame: FrameRow): void {
    notifyExecution(this.deps.bus, this.deps.ledger.scope, frame.execution_id);
    void this.deps.offers.stage({ stageId: frame.stage_id, executionId: frame.execution_id, slots: 1, kinds: frame.tools });
  }

  /** A cursor stage's next frame slot, unless a claim already came back empty (the cursor is drained). */
  private async mintCursorFrame(q: Queryable, stage: { stage_id: string; execution_id: string }): Promise<PendingFrame | undefined> {
    const { frameRows, ledger } = this.deps;
    const cursor = await frameRows.cursorState(q, stage.stage_id);
    if (cursor.drained) return undefined;
    return frameRows.insertCursorFrame(q, ledger.scope, {
      frameId: ledger.ids.next(),
      stageId: stage.stage_id,
      executionId: stage.execution_id,
      frameIndex: cursor.next,
    });
  }

  private async locked(q: Queryable, frameId: string): Promise<LockedFrame> {
    const { ledger } = this.deps;
    return unended(frameId, await this.deps.frameRows.lock(q, ledger.scope, frameId, (executionId) => ledger.lockStream(q, executionId)));
  }

  /** `locked`, and the execution has not ended. */
  private async lockedLive(q: Queryable, frameId: string): Promise<LockedFrame> {
    return this.live(frameId, await this.locked(q, frameId));
  }

  /** The frame, unless it is unknown, ended, or its execution ended. */
  private live(frameId: string, row: LockedFrame | undefined): LockedFrame {
    const frame = unended(frameId, row);
    if (frame.execution_ended) {
      throw new RuntimeError('already_terminal', `execution ${frame.execution_id} of frame ${frameId} already ended`);
    }
    return frame;
  }

  /**
   * A frame is abandoned whole when its lease runs out, so a worker that no
   * longer holds it has nothing left to report: its attempt is over
   * (`already_terminal`, DESIGN.md s6), whoever holds the frame now.
   */
  private assertHolder(frame: FrameRow, holder: Holder): void {
    if (frame.status === 'PENDING' || !holdsLease({ worker_id: frame.owner_worker, lease_token: frame.lease_token }, holder)) {
      throw new RuntimeError('already_terminal', `frame ${frame.frame_id} is not held by worker ${holder.worker_id} with this lease (${frame.status}): its attempt is over`);
    }
  }
}

/** The frame, unless it is unknown or ended. */
function unended(frameId: string, frame: LockedFrame | undefined): LockedFrame {
  if (!frame) throw notFound('frame', frameId);
  if (frame.status === 'COMMITTED' || frame.status === 'FAILED') {
    throw new RuntimeError('already_terminal', `frame ${frameId} is already ${frame.status}`);
  }
  return frame;
}

interface FrameWhere {
  executionId: string;
  step: string;
  loopId: string;
  stageId: string;
  frameId: string;
}

function where(frame: FrameRow): FrameWhere {
  return { executionId: frame.execution_id, step: frame.step_name, loopId: frame.loop_id, stageId: frame.stage_id, frameId: frame.frame_id };
}

function draft<T extends EventTypeName>(at: FrameWhere, type: T, payload: EventDraft<T>['payload']): EventDraft<EventTypeName> {
  return { type, ...at, payload } as EventDraft<EventTypeName>;
}
