import type { JsonObject } from '@noetl/event-kernel';
import type { Queryable } from '../database';
import type { TenantScope } from '../storage-error';
import { isBigintId } from './bigint-id';

export type ScheduleSource = 'api' | 'playbook';
export type ScheduleOverlap = 'skip' | 'buffer_one' | 'allow';

/** What a schedule is: its playbook, its timing and its rules (written by create, update and registration). */
export interface ScheduleDefinition {
  path: string;
  /** Null: the latest version at each fire. */
  version: number | null;
  cron: string | null;
  timezone: string | null;
  interval_seconds: number | null;
  payload: JsonObject;
  overlap: ScheduleOverlap;
  catchup_seconds: number;
  jitter_seconds: number;
  paused: boolean;
}

/** Where a schedule stands: the next fire time, when it is due, and what it held back. */
export interface ScheduleFireState {
  next_fire_at: Date;
  next_due_at: Date;
  buffered_fire_at: Date | null;
}

export interface ScheduleRow extends ScheduleDefinition, ScheduleFireState {
  schedule_id: string;
  source: ScheduleSource;
  last_fire_at: Date | null;
  last_execution_id: string | null;
  last_missed_at: Date | null;
  fire_count: number;
  skip_count: number;
  created_at: Date;
  updated_at: Date;
}

/** A due schedule, locked, with whether the last execution it started still runs. */
export interface DueScheduleRow extends ScheduleRow {
  last_running: boolean;
}

/** What a pass over a due schedule changes. */
export interface ScheduleFires extends ScheduleFireState {
  /** The fire times started now, oldest first, with their executions. */
  started: { fire_at: Date; execution_id: string }[];
  skipped: number;
  /** The latest fire time missed (reached past the catch-up window), if this pass missed any. */
  missed_at: Date | null;
}

const COLUMNS = `schedule_id, path, version, source, cron, timezone, interval_seconds, payload, overlap, catchup_seconds, jitter_seconds, paused,
  next_fire_at, next_due_at, buffered_fire_at, last_fire_at, last_execution_id, last_missed_at, fire_count, skip_count, created_at, updated_at`;

/** Every statement against `noetl.schedule` (STYLE.md "One table, one repository"). */
/**
 * The status of a schedule's last execution (null when none), probed by
 * primary key for the schedules that ask: as a LEFT JOIN the planner hashed
 * the whole execution table, every sweep, when the schedule table was not
 * analysed yet (issue 12, bench:executions).
 */
const LAST_RUN_STATUS = '(SELECT e.status FROM noetl.execution e WHERE e.execution_id = s.last_execution_id)';

export class ScheduleRepository {
  async insert(
    q: Queryable,
    scope: TenantScope,
    row: { schedule_id: string; source: ScheduleSource } & ScheduleDefinition & ScheduleFireState,
  ): Promise<ScheduleRow> {
    const [inserted] = await q.query<ScheduleRow>(
      `INSERT INTO noetl.schedule (schedule_id, tenant_id, organization_id, source, ${DEFINITION}, ${FIRE_STATE})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15, $16, $17)
       RETURNING ${COLUMNS}`,
      [row.schedule_id, scope.tenantId, scope.organizationId, row.source, ...definitionParams(row), ...fireStateParams(row)],
    );
    return normalise(inserted!);
  }

  async get(q: Queryable, scope: TenantScope, scheduleId: string, options: { lock?: boolean } = {}): Promise<ScheduleRow | undefined> {
    if (!isBigintId(scheduleId)) return undefined;
    const [row] = await q.query<ScheduleRow>(
      `SELECT ${COLUMNS} FROM noetl.schedule WHERE schedule_id = $1::bigint AND tenant_id = $2 AND organization_id = $3${options.lock ? ' FOR UPDATE' : ''}`,
      [scheduleId, scope.tenantId, scope.organizationId],
    );
    return row ? normalise(row) : undefined;
  }

  /** The schedule a playbook's `metadata.schedule` made for its path, locked. */
  async declared(q: Queryable, scope: TenantScope, path: string): Promise<ScheduleRow | undefined> {
    const [row] = await q.query<ScheduleRow>(
      `SELECT ${COLUMNS} FROM noetl.schedule WHERE tenant_id = $1 AND organization_id = $2 AND path = $3 AND source = 'playbook' FOR UPDATE`,
      [scope.tenantId, scope.organizationId, path],
    );
    return row ? normalise(row) : undefined;
  }

  /** Oldest first; only those of `path` when given. */
  async list(q: Queryable, scope: TenantScope, filter: { path?: string } = {}): Promise<ScheduleRow[]> {
    const rows = await q.query<ScheduleRow>(
      `SELECT ${COLUMNS} FROM noetl.schedule WHERE tenant_id = $1 AND organization_id = $2 AND ($3::text IS NULL OR path = $3) ORDER BY schedule_id`,
      [scope.tenantId, scope.organizationId, filter.path ?? null],
    );
    return rows.map(normalise);
  }

  /** Replaces the definition and the fire state of a schedule the caller locked. */
  async update(q: Queryable, scheduleId: string, row: ScheduleDefinition & ScheduleFireState): Promise<ScheduleRow> {
    const [updated] = await q.query<ScheduleRow>(
      `UPDATE noetl.schedule SET (${DEFINITION}, ${FIRE_STATE}, updated_at) = ($2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12, $13, $14, now())
        WHERE schedule_id = $1::bigint RETURNING ${COLUMNS}`,
      [scheduleId, ...definitionParams(row), ...fireStateParams(row)],
    );
    return normalise(updated!);
  }

  async delete(q: Queryable, scope: TenantScope, scheduleId: string): Promise<ScheduleRow | undefined> {
    if (!isBigintId(scheduleId)) return undefined;
    const [row] = await q.query<ScheduleRow>(
      `DELETE FROM noetl.schedule WHERE schedule_id = $1::bigint AND tenant_id = $2 AND organization_id = $3 RETURNING ${COLUMNS}`,
      [scheduleId, scope.tenantId, scope.organizationId],
    );
    return row ? normalise(row) : undefined;
  }

  /**
   * Schedules that may have work at `now`: unpaused, and a fire time due or a
   * held fire time whose previous run has ended. Not locked: `lockDue` decides.
   */
  async due(q: Queryable, scope: TenantScope, now: Date, limit: number): Promise<string[]> {
    const rows = await q.query<{ schedule_id: string }>(
      `SELECT s.schedule_id FROM noetl.schedule s
        WHERE s.tenant_id = $1 AND s.organization_id = $2 AND NOT s.paused
          AND (s.next_due_at <= $3 OR (s.buffered_fire_at IS NOT NULL AND ${LAST_RUN_STATUS} IS DISTINCT FROM 'RUNNING'))
        ORDER BY s.next_due_at LIMIT $4`,
      [scope.tenantId, scope.organizationId, now, limit],
    );
    return rows.map((row) => String(row.schedule_id));
  }

  /** The tenants with a schedule `due` would list at `now`: what a sweep of every tenant visits besides running executions. */
  async dueScopes(q: Queryable, now: Date): Promise<TenantScope[]> {
    const rows = await q.query<{ tenant_id: string; organization_id: string }>(
      `SELECT DISTINCT s.tenant_id, s.organization_id FROM noetl.schedule s
        WHERE NOT s.paused AND (s.next_due_at <= $1 OR (s.buffered_fire_at IS NOT NULL AND ${LAST_RUN_STATUS} IS DISTINCT FROM 'RUNNING'))`,
      [now],
    );
    return rows.map((row) => ({ tenantId: row.tenant_id, organizationId: row.organization_id }));
  }

  /**
   * One schedule, locked for this transaction, when it is still due at `now`
   * and no other scheduler holds it (SKIP LOCKED: that one fires it). The
   * lock is what makes a fire time start once across schedulers.
   */
  async lockDue(q: Queryable, scope: TenantScope, scheduleId: string, now: Date): Promise<DueScheduleRow | undefined> {
    const [row] = await q.query<ScheduleRow & { last_running: boolean }>(
      `SELECT ${prefixed('s')}, e.status IS NOT DISTINCT FROM 'RUNNING' AND s.last_execution_id IS NOT NULL AS last_running
         FROM noetl.schedule s LEFT JOIN noetl.execution e ON e.execution_id = s.last_execution_id
        WHERE s.schedule_id = $1::bigint AND s.tenant_id = $2 AND s.organization_id = $3 AND NOT s.paused
          AND (s.next_due_at <= $4 OR (s.buffered_fire_at IS NOT NULL AND e.status IS DISTINCT FROM 'RUNNING'))
        FOR UPDATE OF s SKIP LOCKED`,
      [scheduleId, scope.tenantId, scope.organizationId, now],
    );
    return row ? { ...normalise(row), last_running: row.last_running } : undefined;
  }

  /** Records a pass: the new fire state, the executions started, the fire times skipped or missed. */
  async saveFires(q: Queryable, scheduleId: string, fires: ScheduleFires): Promise<void> {
    const last = fires.started[fires.started.length - 1];
    await q.query(
      `UPDATE noetl.schedule
          SET next_fire_at = $2, next_due_at = $3, buffered_fire_at = $4,
              last_fire_at = COALESCE($5, last_fire_at), last_execution_id = COALESCE($6::bigint, last_execution_id),
              last_missed_at = COALESCE($7, last_missed_at), fire_count = fire_count + $8, skip_count = skip_count + $9, updated_at = now()
        WHERE schedule_id = $1::bigint`,
      [
        scheduleId,
        fires.next_fire_at,
        fires.next_due_at,
        fires.buffered_fire_at,
        last?.fire_at ?? null,
        last?.execution_id ?? null,
        fires.missed_at,
        fires.started.length,
        fires.skipped,
      ],
    );
  }
}

const DEFINITION = 'path, version, cron, timezone, interval_seconds, payload, overlap, catchup_seconds, jitter_seconds, paused';
const FIRE_STATE = 'next_fire_at, next_due_at, buffered_fire_at';

function definitionParams(row: ScheduleDefinition): unknown[] {
  return [
    row.path,
    row.version,
    row.cron,
    row.timezone,
    row.interval_seconds,
    JSON.stringify(row.payload),
    row.overlap,
    row.catchup_seconds,
    row.jitter_seconds,
    row.paused,
  ];
}

function fireStateParams(row: ScheduleFireState): unknown[] {
  return [row.next_fire_at, row.next_due_at, row.buffered_fire_at];
}

function prefixed(alias: string): string {
  return COLUMNS.split(',')
    .map((column) => `${alias}.${column.trim()}`)
    .join(', ');
}

/** bigint columns come back as strings; ids stay strings, counters become numbers. */
function normalise(row: ScheduleRow): ScheduleRow {
  return {
    ...row,
    schedule_id: String(row.schedule_id),
    last_execution_id: row.last_execution_id === null ? null : String(row.last_execution_id),
    fire_count: Number(row.fire_count),
    skip_count: Number(row.skip_count),
  };
}
