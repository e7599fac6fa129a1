import {
  applyEvent,
  EventType,
  type EventDraft,
  type EventTypeName,
  type ExecutionState,
  type LedgerEvent,
} from '@noetl/event-kernel';
import { plan, type ExpressionEngine, type PlannerEnv } from '@noetl/dsl';
import type { Database, Queryable } from '@noetl/storage';
import type { Logger } from 'pino';
import { Subjects, type Bus } from '../bus/bus';
import type { CatalogService } from '../catalog/catalog.service';
import type { Ledger } from '../ledger';
import type { RuntimeMetrics } from '../metrics';
import type { PayloadCache } from '../state/payload-cache';
import { materialize, noEffects, type Effects } from './materialize';

export interface SchedulerDeps {
  db: Database;
  ledger: Ledger;
  catalog: CatalogService;
  payloads: PayloadCache;
  engine: ExpressionEngine;
  bus: Bus;
  metrics: RuntimeMetrics;
  logger: Logger;
  followUps: SchedulerFollowUps;
  random?: () => number;
}

/** What happens outside the pass's transaction once it committed (the sweeper's business). */
export interface SchedulerFollowUps {
  /** A durable timer was written: sweep it when due. */
  timerArmed(dueAt: Date): void;
  /** A command was cancelled: cancel its child execution, if it has one. */
  commandCancelled(commandId: string): void;
  /** The execution reached a terminal status: report to its parent command, cancel its children. */
  executionEnded(state: ExecutionState): void;
}

/** Events planned in one transaction at most; a longer backlog continues in the next. */
const BATCH_LIMIT = 500;
const STATE_CACHE_SIZE = 512;

/**
 * The routing authority (DESIGN.md invariant 2, s4 step 2-3). For one
 * execution at a time (the execution row's lock), it takes every event after
 * the execution's cursor in stream order, folds it, asks the pure planner,
 * and appends the decisions together with the derived rows (commands,
 * timers) and the new cursor in ONE transaction. Decisions are events too:
 * they are folded (and planned: most need nothing) in the same pass.
 * Workers, timers and children are told after the commit.
 */
export class Scheduler {
  /** Folded state at the cursor, per execution: an accelerator, rebuilt on a miss. */
  private readonly states = new Map<string, { state: ExecutionState; version: number }>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();

  constructor(private readonly deps: SchedulerDeps) {}

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
    for (;;) {
      this.dirty.delete(executionId);
      let more: boolean;
      try {
        more = await this.pass(executionId);
      } catch (error) {
        this.states.delete(executionId);
        this.deps.logger.error({ err: error, execution_id: executionId }, 'scheduler pass failed; the sweep retries it');
        return;
      }
      if (!more && !this.dirty.has(executionId)) return;
    }
  }

  /** One transaction; true when events are left for another pass. */
  private async pass(executionId: string): Promise<boolean> {
    const { db, ledger } = this.deps;
    const effects = noEffects();
    let terminal: ExecutionState | undefined;
    const more = await db.transaction(async (q) => {
      // The stream lock is the execution's lock: one pass at a time, and no event can land between our reads and our appends.
      await ledger.lockStream(q, executionId);
      const [row] = await q.query<{ planned_version: number; status: string }>(
        `SELECT planned_version, status FROM noetl.execution
          WHERE execution_id = $1::bigint AND tenant_id = $2 AND organization_id = $3`,
        [executionId, ledger.scope.tenantId, ledger.scope.organizationId],
      );
      if (!row) return false;
      let { state, version } = await this.stateAt(q, executionId, row.planned_version);
      let planned = 0;
      for (;;) {
        const events = await ledger.readAfter(q, executionId, version, BATCH_LIMIT - planned);
        if (events.length === 0) break;
        for (const event of events) {
          const wasRunning = state?.status === 'RUNNING';
          state = applyEvent(state, event);
          await materialize(q, ledger.scope, event, effects);
          await ledger.append(q, await this.decide(state, event));
          if (wasRunning && state.status !== 'RUNNING') terminal = state;
          version = event.stream_version;
          planned += 1;
        }
        if (planned >= BATCH_LIMIT) break;
      }
      if (!state) return false;
      await saveCursor(q, state, version);
      this.remember(executionId, state, version);
      return planned >= BATCH_LIMIT;
    });
    this.afterCommit(effects, terminal);
    return more;
  }

  /** The planner's decisions for one event; a planner crash fails the execution instead of wedging it. */
  private async decide(state: ExecutionState, event: LedgerEvent): Promise<EventDraft<EventTypeName>[]> {
    const { catalog, payloads, engine, ledger } = this.deps;
    try {
      const playbook = await catalog.playbook(state.catalogId);
      await payloads.preloadState(state);
      await payloads.preloadEvent(event);
      const env: PlannerEnv = {
        now: ledger.now(),
        newId: () => ledger.ids.next(),
        random: this.deps.random ?? Math.random,
        engine,
        resolve: payloads.resolve,
      };
      return plan(playbook, state, event, env);
    } catch (error) {
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
  }

  private async stateAt(q: Queryable, executionId: string, version: number): Promise<{ state: ExecutionState | undefined; version: number }> {
    const cached = this.states.get(executionId);
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

  private afterCommit(effects: Effects, terminal: ExecutionState | undefined): void {
    const { bus, ledger, metrics } = this.deps;
    const tenant = ledger.scope.tenantId;
    for (const work of effects.work) {
      metrics.commandsIssued.inc({ kind: work.kind });
      bus.publish(Subjects.work(tenant), work);
    }
    for (const dueAt of effects.timers) this.deps.followUps.timerArmed(dueAt);
    for (const commandId of effects.cancelledCommands) this.deps.followUps.commandCancelled(commandId);
    if (terminal) {
      metrics.executionsFinished.inc({ status: terminal.status });
      bus.publish(Subjects.finished(tenant), { execution_id: terminal.executionId, status: terminal.status });
      this.deps.followUps.executionEnded(terminal);
    }
  }
}

/** The cursor and the execution row's view of the state, in the pass's transaction. */
async function saveCursor(q: Queryable, state: ExecutionState, version: number): Promise<void> {
  await q.query(
    `UPDATE noetl.execution
        SET planned_version = $2, status = $3, result = $4::jsonb, result_ref = $5::jsonb, error = $6::jsonb,
            completed_at = $7, last_event_id = $8, updated_at = now()
      WHERE execution_id = $1::bigint`,
    [
      state.executionId,
      version,
      state.status,
      state.result === undefined ? null : JSON.stringify(state.result),
      state.resultRef ? JSON.stringify(state.resultRef) : null,
      state.error ? JSON.stringify(state.error) : null,
      state.completedAt ?? null,
      state.lastEventId,
    ],
  );
}
