import { EventType, type ExecutionState } from '@noetl/event-kernel';
import type { Database, Queryable } from '@noetl/storage';
import type { Logger } from 'pino';
import { Subjects, type Bus } from '../bus/bus';
import type { LocalControlPlane } from '../control-plane/local-control-plane';
import type { ExecutionService } from '../executions/execution.service';
import type { Ledger } from '../ledger';
import { ChildLinks } from './child-links';
import type { Scheduler, SchedulerFollowUps } from './scheduler';
import { reapExpiredFrames, reofferStages } from './frame-reaper';
import type { ArmedTimer } from './materialize';

export interface SweeperDeps {
  db: Database;
  ledger: Ledger;
  bus: Bus;
  executions: ExecutionService;
  controlPlane: LocalControlPlane;
  logger: Logger;
  /** An ISSUED command not claimed for this long is offered to workers again. */
  renotifyAfterMs?: number;
}

const SWEEP_LIMIT = 100;

interface DueTimer {
  timer_id: string;
  execution_id: string;
  purpose: 'retry' | 'sleep';
  running: boolean;
}

/** This scope's due, unfired timers with whether their execution still runs; callers add the filter, order and lock. */
const DUE_TIMERS = `SELECT t.timer_id, t.execution_id, t.purpose, e.status = 'RUNNING' AS running
  FROM noetl.timer t JOIN noetl.execution e ON e.execution_id = t.execution_id
 WHERE t.fired_at IS NULL AND t.due_at <= now() AND t.tenant_id = $1 AND t.organization_id = $2`;

/**
 * The scheduler's safety net (DESIGN.md s4 "Reaper and timers", invariant 5):
 * nothing here is needed when every message arrives and no process dies, and
 * everything here is idempotent. Each sweep fires due timers, abandons
 * commands whose lease expired (the planner re-issues them), reaps frames
 * whose lease expired, offers unclaimed commands and frames again, plans executions with unplanned events (lost
 * notifications, a restart), and settles parent/child links a crash left
 * half done. It is also the scheduler's follow-up after a commit.
 */
export class Sweeper implements SchedulerFollowUps {
  private wakeups = new Set<NodeJS.Timeout>();

  private readonly children: ChildLinks;

  constructor(
    private readonly deps: SweeperDeps,
    private readonly scheduler: Scheduler,
  ) {
    this.children = new ChildLinks(deps);
  }

  /**
   * One sweep, by one sweeper of the tenant at a time (a transaction-scoped
   * advisory lock, tried, not awaited: another process sweeping now is
   * enough). Resolves false when another sweeper held the lock.
   */
  async sweep(): Promise<boolean> {
    const { db, ledger } = this.deps;
    return db.transaction(async (q) => {
      const [row] = await q.query<{ leader: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 3)) AS leader', [
        `noetl-sweeper:${ledger.scope.tenantId}:${ledger.scope.organizationId}`,
      ]);
      if (!row?.leader) return false;
      await this.fireDueTimers();
      await this.abandonExpiredLeases();
      await this.reapFrames();
      await this.renotifyUnclaimed();
      await reofferStages(db, ledger, this.deps.bus, this.renotifyAfterMs());
      await this.children.settle();
      await this.planBacklog();
      return true;
    });
  }

  /** Frames whose lease ran out: abandoned and offered again whole, or failed past their attempts. */
  private async reapFrames(): Promise<void> {
    const { executions, stages } = await reapExpiredFrames(this.deps.db, this.deps.ledger);
    for (const stage of stages) this.deps.bus.publish(Subjects.frames(this.deps.ledger.scope.tenantId), stage);
    for (const executionId of executions) void this.scheduler.process(executionId);
  }

  private renotifyAfterMs(): number {
    return this.deps.renotifyAfterMs ?? 5000;
  }

  timerArmed({ dueAt }: ArmedTimer): void {
    const delay = Math.max(0, dueAt.getTime() - this.deps.ledger.now().getTime());
    // Past the sweep's own period the sweep finds it; a near timer fires on time.
    if (delay > 2_147_000_000) return;
    const handle = setTimeout(() => {
      this.wakeups.delete(handle);
      void this.fireDueTimers().catch((error: unknown) => this.deps.logger.error({ err: error }, 'timer sweep failed'));
    }, delay + 5);
    handle.unref();
    this.wakeups.add(handle);
  }

  commandCancelled(commandId: string): void {
    void this.children.cancelChildOf(commandId).catch((error: unknown) => this.deps.logger.error({ err: error, command_id: commandId }, 'cancelling a child failed'));
  }

  executionEnded(state: ExecutionState): void {
    if (!state.parentCommandId) return;
    void this.children.reportToParent(state.executionId).catch((error: unknown) =>
      this.deps.logger.error({ err: error, execution_id: state.executionId }, 'reporting to the parent failed'),
    );
  }

  stop(): void {
    for (const handle of this.wakeups) clearTimeout(handle);
    this.wakeups.clear();
  }

  /**
   * Due timers -> `timer.fired` (one per timer: its idempotency key) and the
   * row marked, in one transaction. A timer of an execution that already
   * ended is retired without an event: nothing follows a terminal event.
   */
  async fireDueTimers(): Promise<void> {
    const { db, ledger } = this.deps;
    const fired = await db.transaction(async (q) => {
      const due = await q.query<DueTimer>(`${DUE_TIMERS} ORDER BY t.due_at LIMIT $3 FOR UPDATE OF t SKIP LOCKED`, [
        ledger.scope.tenantId,
        ledger.scope.organizationId,
        SWEEP_LIMIT,
      ]);
      const live: string[] = [];
      // Stream locks in one order, so two sweeps never wait on each other in a cycle.
      const byExecution = [...due].sort((a, b) => (BigInt(a.execution_id) < BigInt(b.execution_id) ? -1 : 1));
      for (const timer of byExecution) if (await this.fire(q, timer)) live.push(String(timer.execution_id));
      return live;
    });
    for (const executionId of new Set(fired)) void this.scheduler.process(executionId);
  }

  /**
   * Fires one timer as the sweep would (the retry lane's job), when it is due
   * and unfired. False when it is not due yet, already fired or retired, or a
   * sweep holds it right now (that sweep fires it). Rows are locked in the
   * sweep's order, timer row then stream, so the two never deadlock.
   */
  async fireTimer(timerId: string): Promise<boolean> {
    const { db, ledger } = this.deps;
    const executionId = await db.transaction(async (q) => {
      const [timer] = await q.query<DueTimer>(`${DUE_TIMERS} AND t.timer_id = $3::bigint FOR UPDATE OF t SKIP LOCKED`, [
        ledger.scope.tenantId,
        ledger.scope.organizationId,
        timerId,
      ]);
      return timer && (await this.fire(q, timer)) ? String(timer.execution_id) : undefined;
    });
    if (executionId === undefined) return false;
    void this.scheduler.process(executionId);
    return true;
  }

  /** A due timer whose row `q` holds: fired (true), or retired without an event when its execution has ended. */
  private async fire(q: Queryable, timer: DueTimer): Promise<boolean> {
    const { ledger } = this.deps;
    const executionId = String(timer.execution_id);
    await ledger.lockStream(q, executionId);
    if (!timer.running || (await ledger.hasEnded(q, executionId))) {
      await q.query('UPDATE noetl.timer SET fired_at = now() WHERE timer_id = $1::bigint', [timer.timer_id]);
      return false;
    }
    const [result] = await ledger.append(q, [
      {
        type: EventType.TimerFired,
        executionId,
        idempotencyKey: `timer-fired:${timer.timer_id}`,
        payload: { timer_id: String(timer.timer_id), purpose: timer.purpose },
      },
    ]);
    await q.query('UPDATE noetl.timer SET fired_at = now(), fired_event_id = $2 WHERE timer_id = $1::bigint', [timer.timer_id, result?.event.event_id ?? null]);
    return true;
  }

  /** Leases that ran out -> `command.abandoned`; the planner issues the next attempt or fails the step. */
  private async abandonExpiredLeases(): Promise<void> {
    const { db, ledger } = this.deps;
    const expired = await db.query<{ command_id: string; execution_id: string }>(
      `SELECT command_id, execution_id FROM noetl.command
        WHERE status IN ('CLAIMED', 'RUNNING') AND lease_until < now() AND tenant_id = $1 AND organization_id = $2
        ORDER BY lease_until LIMIT $3`,
      [ledger.scope.tenantId, ledger.scope.organizationId, SWEEP_LIMIT],
    );
    for (const { command_id: commandId, execution_id: executionId } of expired) {
      const abandoned = await db.transaction(async (q) => {
        await ledger.lockStream(q, String(executionId));
        const [row] = await q.query<{ step: string; attempt: number; worker_id: string | null; lease_until: Date }>(
          `SELECT step, attempt, worker_id, lease_until FROM noetl.command
            WHERE command_id = $1::bigint AND status IN ('CLAIMED', 'RUNNING') AND lease_until < now() FOR UPDATE`,
          [commandId],
        );
        // An ended execution's open commands are the planner's to cancel; nothing follows its end.
        if (!row || (await ledger.hasEnded(q, String(executionId)))) return false;
        await ledger.append(q, [
          {
            type: EventType.CommandAbandoned,
            executionId: String(executionId),
            step: row.step,
            commandId: String(commandId),
            idempotencyKey: `abandoned:${commandId}`,
            payload: {
              attempt: row.attempt,
              reason: 'lease expired',
              ...(row.worker_id ? { worker_id: row.worker_id } : {}),
              lease_until: row.lease_until.toISOString(),
            },
          },
        ]);
        await q.query(`UPDATE noetl.command SET status = 'ABANDONED', completed_at = now(), lease_until = NULL WHERE command_id = $1::bigint`, [
          commandId,
        ]);
        return true;
      });
      if (abandoned) {
        this.deps.logger.warn({ command_id: String(commandId), execution_id: String(executionId) }, 'command lease expired; abandoned');
        void this.scheduler.process(String(executionId));
      }
    }
  }

  private async renotifyUnclaimed(): Promise<void> {
    const { db, ledger, bus } = this.deps;
    const rows = await db.query<{ command_id: string; execution_id: string }>(
      `UPDATE noetl.command SET notified_at = now()
        WHERE command_id IN (
          SELECT command_id FROM noetl.command
           WHERE status = 'ISSUED' AND notified_at < now() - make_interval(secs => $3::double precision / 1000)
             AND tenant_id = $1 AND organization_id = $2
           ORDER BY created_at LIMIT $4)
        RETURNING command_id, execution_id`,
      [ledger.scope.tenantId, ledger.scope.organizationId, this.renotifyAfterMs(), SWEEP_LIMIT],
    );
    for (const row of rows) {
      bus.publish(Subjects.work(ledger.scope.tenantId), { command_id: String(row.command_id), execution_id: String(row.execution_id) });
    }
  }

  /** Executions with events after their cursor: after a restart, or when a notification was lost. */
  private async planBacklog(): Promise<void> {
    const { db, ledger } = this.deps;
    const rows = await db.query<{ execution_id: string }>(
      `SELECT e.execution_id FROM noetl.execution e
        WHERE e.status = 'RUNNING' AND e.tenant_id = $1 AND e.organization_id = $2
          AND EXISTS (SELECT 1 FROM noetl.event ev
                       WHERE ev.stream_id = 'execution/' || e.execution_id AND ev.stream_version > e.planned_version)
        LIMIT $3`,
      [ledger.scope.tenantId, ledger.scope.organizationId, SWEEP_LIMIT],
    );
    await Promise.all(rows.map((row) => this.scheduler.process(String(row.execution_id))));
  }
}
