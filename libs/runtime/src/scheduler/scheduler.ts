import { applyEvent, EventType, type EventDraft, type EventTypeName, type ExecutionState, type LedgerEvent } from '@noetl/event-kernel';
import {
  plan,
  plansOn,
  playbookScopeNames,
  refsToClose,
  InlineSlice,
  RenderSliceExceeded,
  SettledRenderCache,
  type PlannerEnv,
} from '@noetl/dsl';
import { isUniqueViolation, type LedgerTransaction, type Queryable } from '@noetl/storage';
import type { HeldState } from '../control-plane/expected-writes';
import { refsOfEvent, refsOfState } from '../state/payload-cache';
import { afterCommit } from './after-commit';
import { EagerClaims } from './eager-claims';
import { loopBodyOf } from './loop-body';
import { materialize, noEffects, type Effects } from './materialize';
import type { PlannedPass, SchedulerDeps } from './scheduler-types';
import { storePlannedPayloads } from './store-planned-payloads';
import { tracingEnabled } from '../tracing/tracing';

/** Events read from the ledger at a time; a pass plans every pending event (see `pass`). */
const READ_CHUNK = 1000;
const STATE_CACHE_SIZE = 512;
/** Passes of one drain abandoned for renders past the slice; past them (a scope that differs pass after pass), the execution's next pass renders inline. */
const MAX_SETTLE_ROUNDS = 8;
/** Executions whose abandoned pass's ids are kept (see `replayedIds`): the oldest go first. */
const REPLAYED_IDS_KEPT = 1024;

/**
 * The routing authority (DESIGN.md invariant 2, s4 step 2-3). For one
 * execution at a time (the execution row's lock), it takes every event after
 * the execution's cursor in stream order, folds it, asks the pure planner,
 * and appends the decisions together with the derived rows (commands,
 * timers) and the new cursor in ONE transaction. Decisions are folded as
 * they are made (the planner answers no decision of its own).
 * Workers, timers and children are told after the commit.
 */
export class Scheduler {
  /** Folded state at the cursor, per execution: an accelerator, rebuilt on a miss. */
  private readonly states = new Map<string, { state: ExecutionState; version: number }>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();
  private readonly settledRenders: SettledRenderCache;
  /** The planner's renderer: the engine within the inline slice, answering the renders settled off the loop. */
  private readonly slice: InlineSlice;
  /** Executions whose next pass renders inline with the full budget (see MAX_SETTLE_ROUNDS). */
  private readonly inlineRenders = new Set<string>();
  /**
   * The ids the planner minted in a pass abandoned for a render, per
   * execution, handed out again in order by the pass that follows: the
   * scopes of its renders (a run id in `event`, say) are then the ones the
   * renders were settled for. They were never committed, so nothing else holds them.
   */
  private readonly replayedIds = new Map<string, { minted: string[]; used: number }>();
  /**
   * Executions whose decisions go in checked, one statement that skips a
   * decision already in the ledger, until a pass of theirs commits. A pass
   * defers its decisions to its commit, vouching that their keys are new
   * (AppendOptions.minted); were one taken after all, the commit fails on
   * the unique index, and the pass runs again checked instead of failing
   * the same way at every sweep.
   */
  private readonly checkedPlans = new Set<string>();

  constructor(private readonly deps: SchedulerDeps) {
    this.settledRenders = new SettledRenderCache(deps.renders.offload);
    this.slice = new InlineSlice(deps.expressions, deps.renders.slice, this.settledRenders.lookup);
  }

  /** Plans the execution's pending events now, or right after the pass already running for it. */
  process(executionId: string): Promise<void> {
    const current = this.running.get(executionId);
    if (current) {
      this.dirty.add(executionId);
      return current;
    }
    const run = this.drain(executionId).finally(() => this.running.delete(executionId));
    this.running.set(executionId, run);
    return run;
  }

  /** Resolves when every pass in flight has finished (for shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  private async drain(executionId: string): Promise<void> {
    let settleRounds = 0;
    for (;;) {
      this.dirty.delete(executionId);
      try {
        await this.pass(executionId);
        this.inlineRenders.delete(executionId);
        this.checkedPlans.delete(executionId);
      } catch (error) {
        this.states.delete(executionId);
        if (isUniqueViolation(error) && !this.checkedPlans.has(executionId)) {
          this.deps.logger.warn(
            { err: error, execution_id: executionId },
            'a decision was in the ledger already; the pass runs again checked',
          );
          this.checkedPlans.add(executionId);
          continue;
        }
        if (error instanceof RenderSliceExceeded && (await this.settleRender(executionId, error, ++settleRounds))) continue;
        this.deps.logger.error({ err: error, execution_id: executionId }, 'scheduler pass failed; the sweep retries it');
        return;
      }
      if (!this.dirty.has(executionId)) return;
    }
  }

  /** A new id for the planner, or the next of those an abandoned pass minted (see `replayedIds`). */
  private plannerId(executionId: string): string {
    const ids = this.replayedIds.get(executionId);
    if (!ids) return this.deps.ledger.ids.next();
    if (ids.used < ids.minted.length) return ids.minted[ids.used++]!;
    const id = this.deps.ledger.ids.next();
    ids.minted.push(id);
    ids.used++;
    return id;
  }

  private keepReplayedIds(executionId: string): void {
    const ids = this.replayedIds.get(executionId);
    if (!ids) return;
    this.replayedIds.delete(executionId);
    this.replayedIds.set(executionId, ids);
    while (this.replayedIds.size > REPLAYED_IDS_KEPT) {
      const oldest = this.replayedIds.keys().next().value;
      if (oldest === undefined) break;
      this.replayedIds.delete(oldest);
    }
  }

  /**
   * A pass met a render too heavy for the event loop and was rolled back: the
   * render is done in a render thread with no connection or lock held, and
   * the pass runs again (true), its slice answering the render with the
   * outcome. False when the render thread could not answer.
   */
  private async settleRender(executionId: string, exceeded: RenderSliceExceeded, round: number): Promise<boolean> {
    try {
      await this.settledRenders.settle(exceeded);
    } catch (error) {
      this.deps.logger.error({ err: error, execution_id: executionId }, 'a render thread failed');
      return false;
    }
    if (round >= MAX_SETTLE_ROUNDS) this.inlineRenders.add(executionId);
    return true;
  }

  /** One pass in a transaction of its own. */
  private async pass(executionId: string): Promise<void> {
    let planned: PlannedPass | undefined;
    try {
      await this.deps.metrics.span('plan', () =>
        this.deps.db.transaction(async (q) => {
          planned = await this.planWithin(q, executionId);
        }),
      );
    } catch (error) {
      planned?.rolledBack();
      throw error;
    }
    planned?.committed();
  }

  /**
   * Plans EVERY pending event of the execution inside the caller's
   * transaction `q`, under the execution's stream lock (taken here if the
   * caller holds it not yet): its decisions land after all of them in the
   * stream, so a pass that stopped half way would leave a cursor that no
   * single stream position describes. A control-plane report on this
   * process calls it in the report's own transaction, so the report and the
   * decisions it leads to commit together; `after` names what it reported
   * (a command or frame), whose worker's slot may take the next command.
   * The caller must call `committed()` once the transaction committed (the
   * pass's effects: offers, timers, eager claims handed to the worker) or
   * `rolledBack()` when it did not. Undefined: the execution is unknown here.
   */
  async planWithin(q: LedgerTransaction, executionId: string, after?: string): Promise<PlannedPass | undefined> {
    const { ledger } = this.deps;
    // The stream lock is the execution's lock: one pass at a time, and no event can land between our reads and our appends.
    await ledger.lockStream(q, executionId);
    const ids = this.replayedIds.get(executionId);
    if (ids) ids.used = 0;
    else this.replayedIds.set(executionId, { minted: [], used: 0 });
    try {
      const planned = await this.planLocked(q, executionId, after);
      this.replayedIds.delete(executionId);
      return planned;
    } catch (error) {
      if (error instanceof RenderSliceExceeded) {
        this.keepReplayedIds(executionId);
        throw error;
      }
      this.replayedIds.delete(executionId);
      throw error;
    }
  }

  /**
   * The execution's state as this process's last committed pass of it left
   * it, at its stream's head then; undefined while a pass of it is under
   * way (it takes the state out) or when none is cached. What a report or
   * claim may take as known (expected-writes.ts): another process's append
   * since is its guard's to find.
   */
  heldState(executionId: string): HeldState | undefined {
    return this.states.get(executionId);
  }

  /** `planWithin` once the stream lock is held. */
  private async planLocked(q: LedgerTransaction, executionId: string, after: string | undefined): Promise<PlannedPass | undefined> {
    const { ledger } = this.deps;
    const known = this.knownPending(q, executionId);
    const plannedVersion = known?.version ?? (await this.deps.rows.executionRows.cursor(q, ledger.scope, executionId))?.planned_version;
    if (plannedVersion === undefined) return undefined;
    const effects = noEffects();
    const eager = new EagerClaims(this.deps.slots, ledger.scope, this.deps.leaseMs, () => ledger.now(), after);
    try {
      const planned = await this.planPending(q, executionId, plannedVersion, effects, eager, known?.events);
      if (!planned) {
        eager.rolledBack();
        return undefined;
      }
      const { state, version, terminal } = planned;
      const handOver = await eager.handOver(state, this.deps, this.deps.payloadStoreWithin(q));
      return {
        state,
        committed: () => {
          this.remember(executionId, state, version);
          handOver.committed();
          afterCommit(this.deps, effects, terminal);
        },
        rolledBack: () => handOver.rolledBack(),
      };
    } catch (error) {
      eager.rolledBack();
      throw error;
    }
  }

  /**
   * The pending events when they are exactly what this transaction appended
   * (a report's, or an execution's start): the stream was empty before
   * them, or the cached state stands at its head as it was before them, so
   * the cursor does too (it never passes the head, and only a committed
   * pass of ours left that state). Undefined otherwise: the cursor and the
   * events after it are read.
   */
  private knownPending(q: LedgerTransaction, executionId: string): { version: number; events: LedgerEvent[] } | undefined {
    const appended = this.deps.ledger.appendedWithin(q, executionId);
    if (!appended) return undefined;
    const at = appended.before === 0 ? 0 : this.states.get(executionId)?.version;
    return at === appended.before ? { version: at, events: appended.events } : undefined;
  }

  /**
   * Folds and plans every event after `plannedVersion` (`pending`, when the
   * caller knows them), appends the decisions with their derived rows and
   * saves the new cursor. The cached
   * state is taken out of the cache while it is folded into: it goes back
   * only once the transaction committed (`remember`), so a rolled-back pass
   * leaves no state behind that the ledger does not hold.
   */
  private async planPending(
    q: LedgerTransaction,
    executionId: string,
    plannedVersion: number,
    effects: Effects,
    eager: EagerClaims,
    pending?: readonly LedgerEvent[],
  ): Promise<{ state: ExecutionState; version: number; terminal: ExecutionState | undefined } | undefined> {
    const { ledger } = this.deps;
    let terminal: ExecutionState | undefined;
    let { state, version } = await this.stateAt(q, executionId, plannedVersion);
    // Decisions are folded as they are made, so the next trigger is planned against them even
    // though, in the stream, they land after every event this pass read. Read again below, they are skipped.
    const folded = new Set<string>();
    // The stream version of this pass's latest decision: under the stream lock, nothing else lands after what we read.
    let decided = 0;
    const world = {
      scope: ledger.scope,
      ids: ledger.ids,
      rows: this.deps.rows,
      loopBody: (step: string) => loopBodyOf(this.deps.catalog, q, state!, step),
      leaseOf: (id: string) => eager.leaseOf(id),
    };
    const fold = async (event: LedgerEvent): Promise<void> => {
      const wasRunning = state?.status === 'RUNNING';
      state = applyEvent(state, event);
      this.deps.owners.observe(event);
      if (event.event_type === EventType.StepExit && tracingEnabled())
        effects.endedRuns.push({ executionId: event.execution_id, run: state.runs[event.payload.run_id]! });
      await materialize(q, world, event, state, effects);
      if (wasRunning && state.status !== 'RUNNING') terminal = state;
    };
    for (;;) {
      const events = pending ?? (await ledger.readAfter(q, executionId, version, READ_CHUNK));
      if (events.length === 0) break;
      for (const event of events) {
        version = event.stream_version;
        if (folded.has(event.event_id)) continue;
        await fold(event);
        // The planner minted every command id it issues (plannerId) and keys its decisions by a trigger past the
        // cursor: they go in with the commit (AppendOptions.minted), unless a pass found one taken (checkedPlans).
        const minted = !this.checkedPlans.has(executionId);
        const decisions = await ledger.append(q, eager.claim(await this.decide(q, state!, event)), { defer: true, minted });
        eager.assertIssued(decisions);
        for (const decision of decisions) {
          if (decision.duplicate) continue;
          await fold(decision.event);
          folded.add(decision.event.event_id);
          decided = decision.event.stream_version;
        }
      }
      // A short read reached the stream's end as it stood: what follows is this pass's own decisions, folded already.
      if (pending || events.length < READ_CHUNK) {
        version = Math.max(version, decided);
        break;
      }
    }
    if (!state) return undefined;
    await this.deps.rows.executionRows.saveCursor(q, {
      executionId: state.executionId,
      plannedVersion: version,
      status: state.status,
      ...(state.result !== undefined ? { result: state.result } : {}),
      ...(state.resultRef ? { resultRef: state.resultRef } : {}),
      ...(state.error ? { error: state.error } : {}),
      ...(state.completedAt ? { completedAt: state.completedAt } : {}),
      lastEventId: state.lastEventId,
    });
    return { state, version, terminal };
  }

  /**
   * The planner's decisions for one event. Reads go through the pass's own
   * connection `q`: a pass holds the stream lock, and waiting for a second
   * pooled connection while others wait for that lock could starve the pool.
   * A planner crash fails the execution instead of wedging it; a database
   * error fails the pass (the sweep retries it).
   */
  private async decide(q: Queryable, state: ExecutionState, event: LedgerEvent): Promise<EventDraft<EventTypeName>[]> {
    // A claim, heartbeat or dispatch needs no decision: no playbook read, no payload loaded (a finished loop's results among them).
    if (!plansOn(event.event_type)) return [];
    const { catalog, payloads, expressions, ledger } = this.deps;
    const store = this.deps.payloadStoreWithin(q);
    const playbook = await catalog.playbook(state.catalogId, q);
    // Only results a template of the playbook can name are read: the planner renders nothing else.
    const only = playbookScopeNames(playbook);
    const resolve = await payloads.resolverFor(
      [...refsOfState(state, { closing: (loop) => refsToClose(playbook, loop), only }), ...refsOfEvent(event)],
      store,
    );
    const env: PlannerEnv = {
      now: ledger.now(),
      newId: () => this.plannerId(state.executionId),
      random: this.deps.random ?? Math.random,
      renderer: this.inlineRenders.has(state.executionId) ? expressions : this.slice,
      resolve,
      limits: { loopItems: this.deps.maxLoopItems },
    };
    let drafts: EventDraft<EventTypeName>[];
    try {
      drafts = plan(playbook, state, event, env);
    } catch (error) {
      // The pass is abandoned, the render settled off the loop, and the pass runs again (see `drain`).
      if (error instanceof RenderSliceExceeded) throw error;
      if (state.status !== 'RUNNING') return [];
      const message = error instanceof Error ? error.message : String(error);
      this.deps.logger.error({ err: error, execution_id: state.executionId, event_id: event.event_id }, 'planner failed');
      return [
        {
          type: EventType.ExecutionFailed,
          executionId: state.executionId,
          causationId: event.event_id,
          idempotencyKey: `plan-failed:${event.event_id}`,
          payload: { error: { kind: 'internal', message: `the scheduler could not plan ${event.event_type}: ${message}` } },
        },
      ];
    }
    return storePlannedPayloads(drafts, {
      store,
      scope: ledger.scope,
      inlineLimitBytes: this.deps.inlineLimitBytes,
      offloadItems: this.deps.offloadItems,
    });
  }

  /** The state at the cursor: the cached one, taken out of the cache (see `planPending`), or folded from the ledger. */
  private async stateAt(
    q: Queryable,
    executionId: string,
    version: number,
  ): Promise<{ state: ExecutionState | undefined; version: number }> {
    const cached = this.states.get(executionId);
    this.states.delete(executionId);
    if (cached && cached.version === version) return { state: cached.state, version };
    let state: ExecutionState | undefined;
    let at = 0;
    while (at < version) {
      const events = await this.deps.ledger.readAfter(q, executionId, at, Math.min(5000, version - at));
      if (events.length === 0) break;
      for (const event of events) state = applyEvent(state, event);
      at = events[events.length - 1]!.stream_version;
    }
    return { state, version: at };
  }

  private remember(executionId: string, state: ExecutionState, version: number): void {
    this.states.delete(executionId);
    if (state.status !== 'RUNNING') return;
    this.states.set(executionId, { state, version });
    while (this.states.size > STATE_CACHE_SIZE) {
      const oldest = this.states.keys().next().value;
      if (oldest === undefined) break;
      this.states.delete(oldest);
    }
  }
}
