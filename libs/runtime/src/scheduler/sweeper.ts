import { EventType, type ExecutionState } from '@noetl/event-kernel';
import type { Database, DueTimer, LeadershipRepository, LedgerTransaction } from '@noetl/storage';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Bus } from '../bus/bus';
import { workOf, type Offers } from '../bus/offers';
import type { LocalControlPlane } from '../control-plane/local-control-plane';
import type { ExecutionService } from '../executions/execution.service';
import type { Ledger } from '../ledger';
import type { ScheduleTicker } from '../cron-schedules/schedule-ticker';
import { ChildLinks } from './child-links';
import type { Scheduler } from './scheduler';
import type { SchedulerFollowUps } from './scheduler-types';
import { reapExpiredFrames, reofferStages } from './frame-reaper';
import type { ArmedTimer, EventRows } from './materialize';

export interface SweeperDeps extends EventRows {
  db: Database;
  ledger: Ledger;
  bus: Bus;
  offers: Offers;
  executions: ExecutionService;
  controlPlane: LocalControlPlane;
  logger: Logger;
  /** An ISSUED command not claimed for this long is offered to workers again. */
  renotifyAfterMs?: number;
  /** How long a sweeper's leadership lasts unrenewed: a leader that stops answering for this long is replaced. */
  leadershipMs: number;
  leadership: LeadershipRepository;
  /** Fires due schedules in each sweep; absent: this process fires none. */
  schedules?: ScheduleTicker;
}

const SWEEP_LIMIT = 100;

/**
 * The scheduler's safety net (DESIGN.md s4 "Reaper and timers", invariant 5):
 * nothing here is needed when every message arrives and no process dies, and
 * everything here is idempotent. Each sweep fires due timers and due
 * schedules, abandons
 * commands whose lease expired (the planner re-issues them), reaps frames
 * whose lease expired, offers unclaimed commands and frames again, plans executions with unplanned events (lost
 * notifications, a restart), and settles parent/child links a crash left
 * half done. It is also the scheduler's follow-up after a commit.
 */
export class Sweeper implements SchedulerFollowUps {
  private wakeups = new Set<NodeJS.Timeout>();
  /** This sweeper, in the leadership row: its process and a random part (a restarted process is another holder). */
  readonly holder = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

  private readonly children: ChildLinks;
  /** Where planBacklog's next page of running executions starts (their ids are positive). */
  private backlogAfter = '0';

  constructor(
    private readonly deps: SweeperDeps,
    private readonly scheduler: Scheduler,
  ) {
    this.children = new ChildLinks(deps);
  }

  /**
   * One sweep, by the tenant's leading sweeper (a lease in
   * `noetl.leadership`, renewed before each phase; see the migration
   * Leadership1795900000000). No transaction spans the sweep: each phase
   * takes its own, short ones. Resolves false when another sweeper leads.
   */
  async sweep(): Promise<boolean> {
    const { db, ledger } = this.deps;
    const phases: (() => Promise<void>)[] = [
      () => this.fireDueTimers(),
      async () => {
        await this.deps.schedules?.fireDue();
      },
      () => this.abandonExpiredLeases(),
      () => this.reapFrames(),
      () => this.renotifyUnclaimed(),
      () => reofferStages(db, ledger, this.deps.stageRows, this.deps.offers, this.renotifyAfterMs()),
      () => this.children.settle(),
      () => this.planBacklog(),
    ];
    for (const phase of phases) {
      if (!(await this.lead())) return false;
      await phase();
    }
    return true;
  }

  /** Gives up the leadership (a clean stop), so another process sweeps at once. */
  async resign(): Promise<void> {
    await this.deps.leadership.resign(this.deps.db, this.role(), this.holder);
  }

  private lead(): Promise<boolean> {
    return this.deps.leadership.lead(this.deps.db, this.role(), this.holder, this.deps.leadershipMs);
  }

  private role(): string {
    return `sweeper:${this.deps.ledger.scope.tenantId}:${this.deps.ledger.scope.organizationId}`;
  }

  /** Frames whose lease ran out: abandoned and offered again whole, or failed past their attempts. */
  private async reapFrames(): Promise<void> {
    const { executions, stages } = await reapExpiredFrames(this.deps.db, this.deps.ledger, this.deps.frameRows);
    for (const stage of stages) {
      await this.deps.offers.stage({
        stageId: stage.stage_id,
        executionId: stage.execution_id,
        slots: 1,
        kinds: stage.tools,
        pool: stage.pool,
      });
    }
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
    void this.children
      .cancelChildOf(commandId)
      .catch((error: unknown) => this.deps.logger.error({ err: error, command_id: commandId }, 'cancelling a child failed'));
  }

  executionEnded(state: ExecutionState): void {
    if (!state.parentCommandId) return;
    void this.children
      .reportToParent(state.executionId)
      .catch((error: unknown) => this.deps.logger.error({ err: error, execution_id: state.executionId }, 'reporting to the parent failed'));
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
      const due = await this.deps.timerRows.lockDue(q, ledger.scope, SWEEP_LIMIT);
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
      const timer = await this.deps.timerRows.lockDueById(q, ledger.scope, timerId);
      return timer && (await this.fire(q, timer)) ? timer.execution_id : undefined;
    });
    if (executionId === undefined) return false;
    void this.scheduler.process(executionId);
    return true;
  }

  /** A due timer whose row `q` holds: fired (true), or retired without an event when its execution has ended. */
  private async fire(q: LedgerTransaction, timer: DueTimer): Promise<boolean> {
    const { ledger } = this.deps;
    const executionId = timer.execution_id;
    await ledger.lockStream(q, executionId);
    if (!timer.running || (await ledger.hasEnded(q, executionId))) {
      await this.deps.timerRows.markFired(q, timer.timer_id, null);
      return false;
    }
    const [result] = await ledger.append(q, [
      {
        type: EventType.TimerFired,
        executionId,
        idempotencyKey: `timer-fired:${timer.timer_id}`,
        payload: { timer_id: timer.timer_id, purpose: timer.purpose },
      },
    ]);
    await this.deps.timerRows.markFired(q, timer.timer_id, result?.event.event_id ?? null);
    return true;
  }

  /** Leases that ran out -> `command.abandoned`; the planner issues the next attempt or fails the step. */
  private async abandonExpiredLeases(): Promise<void> {
    const { db, ledger } = this.deps;
    const { commandRows } = this.deps;
    const expired = await commandRows.expiredLeases(db, ledger.scope, SWEEP_LIMIT);
    for (const { command_id: commandId, execution_id: executionId } of expired) {
      const abandoned = await db.transaction(async (q) => {
        await ledger.lockStream(q, executionId);
        const row = await commandRows.lockExpired(q, commandId);
        // An ended execution's open commands are the planner's to cancel; nothing follows its end.
        if (!row || (await ledger.hasEnded(q, executionId))) return false;
        const [event] = await ledger.append(q, [
          {
            type: EventType.CommandAbandoned,
            executionId,
            step: row.step,
            commandId,
            idempotencyKey: `abandoned:${commandId}`,
            payload: {
              attempt: row.attempt,
              reason: 'lease expired',
              // Its worker held it and said nothing until the lease ran out: it died or stopped answering while running it.
              worker_lost: true,
              ...(row.worker_id ? { worker_id: row.worker_id } : {}),
              ...(row.lease_until ? { lease_until: row.lease_until.toISOString() } : {}),
            },
          },
        ]);
        await commandRows.end(q, commandId, 'ABANDONED', event?.event.event_id ?? null);
        return true;
      });
      if (abandoned) {
        this.deps.logger.warn({ command_id: commandId, execution_id: executionId }, 'command lease expired; abandoned');
        void this.scheduler.process(executionId);
      }
    }
  }

  private async renotifyUnclaimed(): Promise<void> {
    const { db, ledger, offers } = this.deps;
    for (const command of await this.deps.commandRows.reofferUnclaimed(db, ledger.scope, this.renotifyAfterMs(), SWEEP_LIMIT)) {
      await offers.command({
        commandId: command.command_id,
        executionId: command.execution_id,
        runId: command.run_id,
        ...workOf(command.spec ?? {}),
      });
    }
  }

  /**
   * Executions with events after their cursor: after a restart, or when a
   * notification was lost. Each sweep checks the next SWEEP_LIMIT running
   * executions, resuming after the last one the previous sweep checked, so
   * its reads stay bounded however many run; a lost notification waits at
   * most (running / SWEEP_LIMIT) sweeps.
   */
  private async planBacklog(): Promise<void> {
    const { db, ledger } = this.deps;
    const { unplanned, next } = await this.deps.executionRows.unplanned(db, ledger.scope, { after: this.backlogAfter, limit: SWEEP_LIMIT });
    this.backlogAfter = next ?? '0';
    await Promise.all(unplanned.map((executionId) => this.scheduler.process(executionId)));
  }
}
