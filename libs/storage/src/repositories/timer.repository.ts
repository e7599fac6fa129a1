import type { TimerPurpose } from '@noetl/event-kernel';
import type { Queryable } from '../database';
import type { TenantScope } from '../storage-error';

/** A due, unfired timer, with whether its execution still runs. */
export interface DueTimer {
  timer_id: string;
  execution_id: string;
  purpose: TimerPurpose;
  running: boolean;
}

/** This scope's due, unfired timers with whether their execution still runs; callers add the filter, order and lock. */
const DUE_TIMERS = `SELECT t.timer_id, t.execution_id, t.purpose, e.status = 'RUNNING' AS running
  FROM noetl.timer t JOIN noetl.execution e ON e.execution_id = t.execution_id
 WHERE t.fired_at IS NULL AND t.due_at <= now() AND t.tenant_id = $1 AND t.organization_id = $2`;

function normalise(row: DueTimer): DueTimer {
  return { ...row, timer_id: String(row.timer_id), execution_id: String(row.execution_id) };
}

/** Every statement against `noetl.timer` (STYLE.md "One table, one repository"). */
export class TimerRepository {
  async insert(
    q: Queryable,
    scope: TenantScope,
    timer: { timerId: string; executionId: string; purpose: TimerPurpose; dueAt: string; payload: object; createdEventId: string },
  ): Promise<void> {
    await q.query(
      `INSERT INTO noetl.timer (timer_id, execution_id, tenant_id, organization_id, purpose, due_at, payload, created_event_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) ON CONFLICT (timer_id) DO NOTHING`,
      [
        timer.timerId,
        timer.executionId,
        scope.tenantId,
        scope.organizationId,
        timer.purpose,
        timer.dueAt,
        JSON.stringify(timer.payload),
        timer.createdEventId,
      ],
    );
  }

  /** Due timers, locked (skipping rows another sweep holds), earliest first. */
  async lockDue(q: Queryable, scope: TenantScope, limit: number): Promise<DueTimer[]> {
    const rows = await q.query<DueTimer>(`${DUE_TIMERS} ORDER BY t.due_at LIMIT $3 FOR UPDATE OF t SKIP LOCKED`, [
      scope.tenantId,
      scope.organizationId,
      limit,
    ]);
    return rows.map(normalise);
  }

  /** One timer, locked, when it is due and unfired and no sweep holds it. */
  async lockDueById(q: Queryable, scope: TenantScope, timerId: string): Promise<DueTimer | undefined> {
    const [row] = await q.query<DueTimer>(`${DUE_TIMERS} AND t.timer_id = $3::bigint FOR UPDATE OF t SKIP LOCKED`, [
      scope.tenantId,
      scope.organizationId,
      timerId,
    ]);
    return row ? normalise(row) : undefined;
  }

  /** Fired with its event, or retired without one (its execution ended). */
  async markFired(q: Queryable, timerId: string, firedEventId: string | null): Promise<void> {
    await q.query('UPDATE noetl.timer SET fired_at = now(), fired_event_id = $2 WHERE timer_id = $1::bigint', [timerId, firedEventId]);
  }
}
