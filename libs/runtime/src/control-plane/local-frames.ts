import { EventType, type Json } from '@noetl/event-kernel';
import {
  putFrameOutput,
  type FrameOutputRow,
  type FrameRow,
  type LedgerTransaction,
  type LockedFrame,
  type PendingFrame,
  type Queryable,
} from '@noetl/storage';
import type { HandOver, SlotReservation } from '../scheduler/eager-claims';
import { notifyExecution } from '../bus/bus';
import { assembleFrame, type FrameClaim, type ScopeOf } from './assemble-frame';
import { assertClaimFits } from './claim-fit';
import { newLeaseToken, type Holder } from './lease-token';
import { notFound } from '../runtime-error';
import type { LocalControlPlaneDeps } from './local-control-plane';
import {
  DEFAULT_FRAME_LEASE_MS,
  type ClaimRequest,
  type ClaimedFrame,
  type CommitFrameRequest,
  type FailRequest,
  type FrameRowReport,
  type HeartbeatResult,
  type LeaseRequest,
} from './control-plane';
import { committedDraft, draft, where, type FrameCommitReport } from './frame-drafts';
import { FrameExecutions } from './frame-executions';
import { assertFrameHolder, liveFrame, unendedFrame } from './frame-holding';
import { KeyedBatches } from './keyed-batches';
import { frameLeaseMs } from './frame-policy';
import { reportAndPlan } from './report-and-plan';
import { storableFrameReport } from './storable-reports';

/** A frame's commit, its output stored, waiting in its execution's queue (see LocalFrames.commit). */
interface QueuedCommit extends FrameCommitReport {
  frameId: string;
  settle: { resolve(): void; reject(error: unknown): void };
}

/** A claim of a stage's frame, waiting for its stage's batch in flight (see LocalFrames.claim). */
interface QueuedClaim {
  request: ClaimRequest;
  settle: { resolve(claim: FrameClaim | undefined): void; reject(error: unknown): void };
}

/** Commits of one execution taken into one transaction at most. */
const MAX_COMMIT_BATCH = 64;
/** Claims of one stage taken into one transaction at most. */
const MAX_CLAIM_BATCH = 64;

/**
 * The frame side of the in-process control plane (DESIGN.md "Loops are
 * stages of frames"). Same discipline as commands: the execution's stream
 * lock first, then the stage or frame row; a frame takes one terminal
 * report; nothing is appended after the execution's end.
 */
export class LocalFrames {
  private readonly executions = new FrameExecutions();
  /** Commits by execution (see `commit`). */
  private readonly commits = new KeyedBatches<QueuedCommit>(MAX_COMMIT_BATCH, (executionId, batch) => this.commitBatch(executionId, batch));
  /** Claims by stage (see `claim`). */
  private readonly claims = new KeyedBatches<QueuedClaim>(MAX_CLAIM_BATCH, (stageId, batch) => this.claimBatch(stageId, batch));

  constructor(
    private readonly deps: LocalControlPlaneDeps,
    private readonly scopeOf: ScopeOf,
  ) {}

  /**
   * Claims a frame of the stage for the request's worker. Claims of one
   * stage wait in a queue while one of its batches runs, and go together in
   * the next transaction: each takes the execution's stream lock and commits
   * (a WAL flush), so the slots of a worker that all claim as a loop opens
   * took their frames one commit after another, the last one several commits
   * late. A batch that fails is tried again one claim at a time, so a claim
   * the stage refuses (another pool, a tool kind the worker lacks) fails alone.
   */
  async claim(stageId: string, request: ClaimRequest): Promise<ClaimedFrame | null> {
    const claimed = await new Promise<FrameClaim | undefined>((resolve, reject) =>
      this.claims.add(stageId, { request, settle: { resolve, reject } }),
    );
    return claimed ? assembleFrame(this.deps, this.scopeOf, claimed) : null;
  }

  /** One transaction for `batch` (see `claim`), or one per claim when that fails; settles each claim, never throws. */
  private async claimBatch(stageId: string, batch: readonly QueuedClaim[]): Promise<void> {
    try {
      const claims = await this.deps.db.transaction((q) =>
        this.claimWithin(
          q,
          stageId,
          batch.map((claim) => claim.request),
        ),
      );
      for (const [i, claim] of batch.entries()) claim.settle.resolve(claims[i]);
    } catch (error) {
      if (batch.length === 1) batch[0]!.settle.reject(error);
      else for (const claim of batch) await this.claimBatch(stageId, [claim]);
    }
  }

  /**
   * The stage's next claimable frames, one leased to each of `requests`'
   * workers in order, in `q`'s transaction, as many as the stage has
   * pending and its `max_in_flight` allows (a cursor stage mints one at a
   * time); none when none is claimable now. `executionId`: the stage's
   * execution, when the caller knows it.
   */
  private async claimWithin(
    q: LedgerTransaction,
    stageId: string,
    requests: readonly ClaimRequest[],
    executionId?: string,
  ): Promise<FrameClaim[]> {
    const { ledger, frameRows, stageRows } = this.deps;
    const stage = await stageRows.lock(q, ledger.scope, stageId, executionId);
    if (!stage) throw notFound('stage', stageId);
    for (const request of requests) assertClaimFits(`stage ${stageId}`, request, { kinds: stage.tools, pool: stage.pool });
    if (stage.status !== 'OPEN' || stage.execution_ended) return [];
    const { held, next } = await frameRows.claimable(q, stageId, requests.length);
    const free = Math.max(0, stage.max_in_flight - held);
    const minted = next.length === 0 && stage.mode === 'cursor' && free > 0 ? await this.mintCursorFrame(q, stage) : undefined;
    const claims = (minted ? [minted] : next.slice(0, free)).map((frame, i): FrameClaim => {
      const request = requests[i]!;
      const leaseMs = request.lease_ms ?? frameLeaseMs(stage.frame_policy, DEFAULT_FRAME_LEASE_MS);
      const token = newLeaseToken();
      const leaseUntil = new Date(ledger.now().getTime() + leaseMs).toISOString();
      return {
        stage,
        frame,
        leaseMs,
        leaseUntil,
        attempt: frame.attempts + 1,
        token: token.token,
        tokenHash: token.hash,
        workerId: request.worker_id,
      };
    });
    if (claims.length === 0) return [];
    // A frame starts with its dispatch (its worker holds it from here); no `frame.started` beside it.
    await ledger.append(
      q,
      claims.map(({ frame, leaseUntil, attempt, workerId }) =>
        draft(
          { executionId: stage.execution_id, step: stage.step_name, loopId: stage.loop_id, stageId, frameId: frame.frame_id },
          EventType.FrameDispatched,
          {
            frame_id: frame.frame_id,
            stage_id: stageId,
            worker_id: workerId,
            lease_until: leaseUntil,
            attempt,
          },
        ),
      ),
    );
    for (const { frame, leaseUntil, attempt, tokenHash, workerId } of claims) {
      await frameRows.markRunning(q, frame.frame_id, { workerId, leaseUntil, attempts: attempt, tokenHash });
      this.executions.remember(frame.frame_id, stage.execution_id);
    }
    return claims;
  }

  async heartbeat(frameId: string, request: LeaseRequest): Promise<HeartbeatResult> {
    const { db, ledger } = this.deps;
    return db.transaction(async (q) => {
      const frame = await this.locked(q, frameId);
      if (frame.execution_ended) return { lease_until: ledger.now().toISOString(), cancelled: true };
      assertFrameHolder(frame, request);
      const leaseUntil = new Date(
        ledger.now().getTime() + (request.lease_ms ?? frameLeaseMs(frame.frame_policy, DEFAULT_FRAME_LEASE_MS)),
      ).toISOString();
      await ledger.append(q, [
        draft(where(frame), EventType.FrameHeartbeat, { frame_id: frameId, worker_id: request.worker_id, lease_until: leaseUntil }),
      ]);
      await this.deps.frameRows.setLease(q, frameId, leaseUntil);
      return { lease_until: leaseUntil, cancelled: false };
    });
  }

  /**
   * Commits a frame: its rows' results go inline in `frame.committed` when
   * they fit, else as Arrow in the payload store first, outside any lock
   * (the event then carries the ref). Commits of
   * one execution wait in a queue while one of its batches runs, and go
   * together in the next: one transaction takes the execution's stream lock
   * once for them all, appends their `frame.committed` events in one
   * statement, plans once and claims the stage's next frames for the
   * committing workers' slots. Under the frames of a busy loop, whose
   * commits all wait for that lock, a batch grows with the wait instead of
   * each commit waiting its turn. A commit its frame refuses (a lease lost,
   * the execution ended) fails alone; the others land.
   */
  async commit(frameId: string, reported: CommitFrameRequest): Promise<void> {
    const { ledger, payloadStore, inlineLimitBytes, inlineLoopResults, frameRows, db } = this.deps;
    const request = storableFrameReport(reported);
    const rows = inIndexOrder(request.rows) ? request.rows : [...request.rows].sort((a, b) => a.index - b.index);
    const results: Json[] = rows.map((row) => row.result ?? null);
    // Inline, the event holds every row's outcome (failed rows with their error); a copy in the store would add nothing.
    // A loop keeps at most `inlineLoopResults` rows' results inline: the state of a large loop holds its frames' refs, not their results.
    const output: QueuedCommit['output'] =
      (rows.at(-1)?.index ?? 0) < inlineLoopResults && Buffer.byteLength(JSON.stringify(results)) <= inlineLimitBytes
        ? { results }
        : // Content-addressed: a retried commit stores the same bytes once.
          {
            outputRef: await putFrameOutput(
              payloadStore,
              rows.map(({ error, ...row }): FrameOutputRow => ({ ...row, ...(error ? { error: { ...error } as Json } : {}) })),
              ledger.scope,
            ),
          };
    const executionId = this.executions.of(frameId) ?? (await frameRows.executionOf(db, ledger.scope, frameId));
    if (executionId === undefined) throw notFound('frame', frameId);
    await new Promise<void>((resolve, reject) =>
      this.commits.add(executionId, { frameId, request, rows, output, settle: { resolve, reject } }),
    );
  }

  /** One transaction for `batch` (see `commit`); settles each commit, never throws. */
  private async commitBatch(executionId: string, batch: readonly QueuedCommit[]): Promise<void> {
    const { ledger, frameRows } = this.deps;
    const refused = new Map<QueuedCommit, unknown>();
    let committed: LockedFrame[] = [];
    const report = async (q: LedgerTransaction): Promise<string> => {
      refused.clear();
      const locked = await frameRows.lockOfExecution(
        q,
        ledger.scope,
        executionId,
        batch.map((commit) => commit.frameId),
      );
      const landing: { commit: QueuedCommit; frame: LockedFrame }[] = [];
      for (const commit of batch) {
        try {
          const frame = liveFrame(commit.frameId, locked.get(commit.frameId));
          assertFrameHolder(frame, commit.request);
          landing.push({ commit, frame });
        } catch (error) {
          refused.set(commit, error);
        }
      }
      // Deferred: they go in with the next frames' dispatch or the scheduler's decisions, in one statement.
      const appended = await ledger.append(
        q,
        landing.map(({ commit, frame }) => committedDraft(commit, frame)),
        { defer: true },
      );
      for (const [i, { commit, frame }] of landing.entries()) {
        const outputRef = 'outputRef' in commit.output ? commit.output.outputRef : null;
        await frameRows.markCommitted(q, frame.frame_id, {
          outputRef,
          rowCount: commit.rows.length,
          eventId: appended[i]?.event.event_id ?? null,
        });
      }
      committed = landing.map(({ frame }) => frame);
      return executionId;
    };
    const handedOn = new Set<string>();
    try {
      await reportAndPlan(this.deps, batch.at(-1)!.frameId, report, (q) => this.nextFramesFor(q, executionId, committed, handedOn));
    } catch (error) {
      for (const commit of batch) commit.settle.reject(error);
      return;
    }
    for (const commit of batch) {
      const refusal = refused.get(commit);
      if (refusal === undefined) commit.settle.resolve();
      else commit.settle.reject(refusal);
    }
    // The stage slot each committed frame held goes to its stage's next frame: handed to its worker already, or offered.
    const offered = new Map<string, { frame: LockedFrame; slots: number }>();
    for (const frame of committed) {
      this.executions.forget(frame.frame_id);
      if (handedOn.has(frame.frame_id)) continue;
      const slot = offered.get(frame.stage_id);
      if (slot) slot.slots++;
      else offered.set(frame.stage_id, { frame, slots: 1 });
    }
    for (const { frame, slots } of offered.values())
      void this.deps.offers.stage({
        stageId: frame.stage_id,
        executionId: frame.execution_id,
        slots,
        kinds: frame.tools,
        pool: frame.pool,
      });
  }

  /**
   * The next frames of the committed frames' stages, claimed in the commit's
   * transaction for this process's worker: the slots of the runs that
   * committed them when those are that worker's, else free ones (no offer,
   * no claim round trip of their own). `handedOn` gets the committed
   * frames whose slot took one. Undefined when this process has no worker
   * with a slot for them, or no frame is claimable now. A frame whose
   * assembly fails after the commit is not run: its lease runs out and the
   * reaper gives it back.
   */
  private async nextFramesFor(
    q: LedgerTransaction,
    executionId: string,
    done: readonly LockedFrame[],
    handedOn: Set<string>,
  ): Promise<HandOver | undefined> {
    const byStage = new Map<string, { frame: LockedFrame; reservation: SlotReservation }[]>();
    const reservations: SlotReservation[] = [];
    const giveBack = (): void => {
      handedOn.clear();
      for (const reservation of reservations) reservation.cancel();
    };
    try {
      for (const frame of done) {
        const reservation = this.deps.slots?.reserve(this.deps.ledger.scope, { kinds: frame.tools, pool: frame.pool }, frame.frame_id);
        if (!reservation) continue;
        reservations.push(reservation);
        const stage = byStage.get(frame.stage_id);
        if (stage) stage.push({ frame, reservation });
        else byStage.set(frame.stage_id, [{ frame, reservation }]);
      }
      const runs: (() => void)[] = [];
      for (const [stageId, slots] of byStage) {
        // The slot was reserved for the frame's pool and kinds (`reserve` checked them): its claim is of that pool.
        const claims = await this.claimWithin(
          q,
          stageId,
          slots.map(({ frame, reservation }) => ({ worker_id: reservation.workerId, ...(frame.pool ? { pool: frame.pool } : {}) })),
          executionId,
        );
        for (const [i, { frame, reservation }] of slots.entries()) {
          const claimed = claims[i];
          if (!claimed) {
            reservation.cancel();
            continue;
          }
          handedOn.add(frame.frame_id);
          // Assembled once the commit is in: the stream's lock, which every frame of the loop waits for, is not held meanwhile.
          runs.push(() => reservation.runFrame(() => assembleFrame(this.deps, this.scopeOf, claimed)));
        }
      }
      if (runs.length === 0) return undefined;
      return {
        committed: () => {
          for (const run of runs) run();
        },
        rolledBack: giveBack,
      };
    } catch (error) {
      giveBack();
      throw error;
    }
  }

  async fail(frameId: string, request: FailRequest): Promise<void> {
    const { db, ledger } = this.deps;
    const frame = await db.transaction(async (q) => {
      const locked = await this.lockedLive(q, frameId);
      assertFrameHolder(locked, request);
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
    this.executions.forget(frameId);
    this.afterTerminal(frame);
  }

  async release(frameId: string, request: LeaseRequest): Promise<void> {
    const { db, ledger } = this.deps;
    const frame = await db.transaction(async (q) => {
      const locked = await this.lockedLive(q, frameId);
      assertFrameHolder(locked, request);
      await ledger.append(q, [
        draft(where(locked), EventType.FrameAbandoned, {
          frame_id: frameId,
          worker_id: request.worker_id,
          attempt: locked.attempts,
          reason: 'released by its worker',
        }),
      ]);
      await this.deps.frameRows.release(q, frameId, { refundAttempt: true });
      return locked;
    });
    this.executions.forget(frameId);
    this.afterTerminal(frame);
  }

  /**
   * The frame's row; throws unless `holder` holds the frame's lease. Read
   * without a lock: it changes nothing, and a frame's every credential
   * look-up waiting for the stream's lock held up the loop's commits.
   */
  async held(frameId: string, holder: Holder): Promise<FrameRow> {
    const frame = liveFrame(frameId, await this.deps.frameRows.read(this.deps.db, this.deps.ledger.scope, frameId));
    assertFrameHolder(frame, holder);
    return frame;
  }

  /** The scheduler plans the frame's end (or release); the stage's next frame is offered. */
  private afterTerminal(frame: FrameRow): void {
    notifyExecution(this.deps.bus, this.deps.ledger.scope, frame.execution_id);
    void this.deps.offers.stage({
      stageId: frame.stage_id,
      executionId: frame.execution_id,
      slots: 1,
      kinds: frame.tools,
      pool: frame.pool,
    });
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

  private async locked(q: LedgerTransaction, frameId: string): Promise<LockedFrame> {
    const { ledger } = this.deps;
    return unendedFrame(frameId, await this.deps.frameRows.lock(q, ledger.scope, frameId));
  }

  /** `locked`, and the execution has not ended. */
  private async lockedLive(q: LedgerTransaction, frameId: string): Promise<LockedFrame> {
    return liveFrame(frameId, await this.locked(q, frameId));
  }
}

/** Rows as a worker reports them: already in index order, unless a remote one sent them otherwise. */
function inIndexOrder(rows: readonly FrameRowReport[]): boolean {
  for (let i = 1; i < rows.length; i += 1) if (rows[i]!.index < rows[i - 1]!.index) return false;
  return true;
}
