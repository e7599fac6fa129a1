import { planFires, type FireInput } from '@noetl/dsl';
import type { Database, DueScheduleRow, ScheduleRepository } from '@noetl/storage';
import type { Logger } from 'pino';
import type { ExecutionService, StartedWithin } from '../executions/execution.service';
import type { Ledger } from '../ledger';
import { timingOf } from './schedule-definition';
import { requestOf } from './schedule.service';

export interface ScheduleTickerDeps {
  db: Database;
  ledger: Ledger;
  rows: ScheduleRepository;
  executions: ExecutionService;
  logger: Logger;
  /** Default: the ledger's clock. */
  now?: () => Date;
}

/** Schedules looked at per pass; the rest wait for the next pass. */
const DUE_LIMIT = 100;

/**
 * Fires due schedules (the scheduler role's sweep calls it). Each schedule
 * is fired in a transaction of its own, under its row's lock (taken with
 * SKIP LOCKED: a scheduler that finds it held leaves it to the holder): the
 * pure rules (`planFires`) say which fire times start, and their
 * `execution.started` + `schedule.fired` (idempotency key
 * `schedule:<id>:<fire time>`) commit with the advanced fire state. So a
 * fire time starts at most one execution across schedulers and crashes, and
 * a crash before the commit leaves it due for the next pass.
 */
export class ScheduleTicker {
  constructor(private readonly deps: ScheduleTickerDeps) {}

  /** One pass; resolves with the executions started. */
  async fireDue(): Promise<number> {
    const { db, ledger, rows } = this.deps;
    const now = this.now();
    let started = 0;
    for (const scheduleId of await rows.due(db, ledger.scope, now, DUE_LIMIT)) {
      try {
        started += await this.fire(scheduleId, now);
      } catch (error) {
        this.deps.logger.error({ err: error, schedule_id: scheduleId }, 'firing a schedule failed; the next pass retries it');
      }
    }
    return started;
  }

  private async fire(scheduleId: string, now: Date): Promise<number> {
    const { db, ledger, rows, executions } = this.deps;
    const started = await db.transaction(async (q) => {
      const row = await rows.lockDue(q, ledger.scope, scheduleId, now);
      if (!row) return [];
      const plan = planFires(fireInputOf(row), now);
      const fired: (StartedWithin & { fireAt: Date })[] = [];
      for (const fireTime of plan.starts) {
        const result = await executions.startWithin(q, requestOf(row), { schedule: { scheduleId, fireTime } });
        fired.push({ ...result, fireAt: fireTime });
      }
      await rows.saveFires(q, scheduleId, {
        next_fire_at: plan.nextFireAt,
        next_due_at: plan.nextDueAt,
        buffered_fire_at: plan.bufferedFireAt,
        started: fired.map((s) => ({ fire_at: s.fireAt, execution_id: s.executionId })),
        skipped: plan.skipped,
        missed_at: plan.lastMissed,
      });
      if (plan.lastMissed) {
        this.deps.logger.warn(
          { schedule_id: scheduleId, last_missed: plan.lastMissed.toISOString() },
          'schedule fire times missed: reached after their catch-up window',
        );
      }
      return fired;
    });
    for (const result of started) {
      executions.announce(result);
      this.deps.logger.info(
        { schedule_id: scheduleId, execution_id: result.executionId, fire_time: result.fireAt.toISOString() },
        'schedule fired',
      );
    }
    return started.length;
  }

  private now(): Date {
    return this.deps.now?.() ?? this.deps.ledger.now();
  }
}

function fireInputOf(row: DueScheduleRow): FireInput {
  return {
    scheduleId: row.schedule_id,
    timing: timingOf(row),
    overlap: row.overlap,
    catchupSeconds: row.catchup_seconds,
    jitterSeconds: row.jitter_seconds,
    nextFireAt: row.next_fire_at,
    bufferedFireAt: row.buffered_fire_at,
    lastRunning: row.last_running,
  };
}
