import { SCHEDULE_KEYS } from '@noetl/dsl';
import type { Database, ScheduleRepository, ScheduleRow } from '@noetl/storage';
import type { CatalogService } from '../catalog/catalog.service';
import type { ExecutionService } from '../executions/execution.service';
import type { Ledger } from '../ledger';
import { RuntimeError, notFound } from '../runtime-error';
import { definitionOf, fieldsOf, fireStateAfter, scheduleSpecOf, scheduleView } from './schedule-definition';
import type { ScheduleInput, ScheduleView, TriggeredSchedule } from './schedule-types';

export interface ScheduleServiceDeps {
  db: Database;
  ledger: Ledger;
  rows: ScheduleRepository;
  catalog: CatalogService;
  executions: ExecutionService;
}

/**
 * Schedules as the API and the CLI manage them (DESIGN.md s6): create, list,
 * read, change (pause and resume are changes of `paused`), delete, and start
 * one now. Every write checks the whole schedule and that its playbook is
 * registered; the fire state follows (`fireStateAfter`). The scheduler role
 * fires them (ScheduleTicker).
 */
export class ScheduleService {
  constructor(private readonly deps: ScheduleServiceDeps) {}

  async create(input: ScheduleInput): Promise<ScheduleView> {
    const { db, ledger, rows } = this.deps;
    if (typeof input.path !== 'string' || input.path === '')
      throw new RuntimeError('invalid_request', 'a schedule needs the "path" of a registered playbook');
    const spec = scheduleSpecOf(scheduleFields(input));
    const version = input.version ?? null;
    await this.assertRegistered(input.path, version);
    const scheduleId = ledger.ids.next();
    const definition = definitionOf(input.path, version, spec, spec.paused ?? false);
    const row = await rows.insert(db, ledger.scope, {
      schedule_id: scheduleId,
      source: 'api',
      ...definition,
      ...fireStateAfter(scheduleId, undefined, definition, ledger.now()),
    });
    return scheduleView(row);
  }

  async list(filter: { path?: string } = {}): Promise<{ schedules: ScheduleView[] }> {
    const rows = await this.deps.rows.list(this.deps.db, this.deps.ledger.scope, filter);
    return { schedules: rows.map(scheduleView) };
  }

  async get(scheduleId: string): Promise<ScheduleView> {
    return scheduleView(await this.found(this.deps.rows.get(this.deps.db, this.deps.ledger.scope, scheduleId), scheduleId));
  }

  /** Lays `patch` over the schedule (`cron` replaces an interval and the other way round; `version: null` unpins). */
  async update(scheduleId: string, patch: ScheduleInput): Promise<ScheduleView> {
    const { db, ledger, rows } = this.deps;
    const row = await db.transaction(async (q) => {
      const current = await this.found(rows.get(q, ledger.scope, scheduleId, { lock: true }), scheduleId);
      const path = patch.path ?? current.path;
      const version = patch.version !== undefined ? patch.version : current.version;
      if (path !== current.path || version !== current.version) await this.assertRegistered(path, version);
      const fields = { ...fieldsOf(current), ...scheduleFields(patch) };
      if (patch.cron !== undefined) delete fields['interval_seconds'];
      if (patch.interval_seconds !== undefined) {
        delete fields['cron'];
        delete fields['timezone'];
      }
      const spec = scheduleSpecOf(fields);
      const definition = definitionOf(path, version, spec, spec.paused ?? current.paused);
      return rows.update(q, scheduleId, { ...definition, ...fireStateAfter(scheduleId, current, definition, ledger.now()) });
    });
    return scheduleView(row);
  }

  async delete(scheduleId: string): Promise<ScheduleView> {
    return scheduleView(await this.found(this.deps.rows.delete(this.deps.db, this.deps.ledger.scope, scheduleId), scheduleId));
  }

  /**
   * Starts the schedule's playbook now, paused or not and whatever runs
   * (an explicit request): a fire time of its own, marked manual, that
   * counts as the schedule's last execution for the overlap policy.
   */
  async trigger(scheduleId: string): Promise<TriggeredSchedule> {
    const { db, ledger, rows, executions } = this.deps;
    const fireTime = ledger.now();
    const started = await db.transaction(async (q) => {
      const row = await this.found(rows.get(q, ledger.scope, scheduleId, { lock: true }), scheduleId);
      const result = await executions.startWithin(q, requestOf(row), { schedule: { scheduleId, fireTime, manual: true } });
      await rows.saveFires(q, scheduleId, {
        next_fire_at: row.next_fire_at,
        next_due_at: row.next_due_at,
        buffered_fire_at: row.buffered_fire_at,
        started: result.created ? [{ fire_at: fireTime, execution_id: result.executionId }] : [],
        skipped: 0,
        missed_at: null,
      });
      return result;
    });
    executions.announce(started);
    return { schedule_id: scheduleId, execution_id: started.executionId, fire_time: fireTime.toISOString() };
  }

  private async assertRegistered(path: string, version: number | null): Promise<void> {
    await this.deps.catalog.resolve({ path, ...(version !== null ? { version } : {}) });
  }

  private async found(row: Promise<ScheduleRow | undefined>, scheduleId: string): Promise<ScheduleRow> {
    const found = await row;
    if (!found) throw notFound('schedule', scheduleId);
    return found;
  }
}

/** What an execution of the schedule is started with. */
export function requestOf(row: ScheduleRow): { path: string; version?: number; payload: ScheduleRow['payload'] } {
  return { path: row.path, ...(row.version !== null ? { version: row.version } : {}), payload: row.payload };
}

/** The schedule keys an input gives (`path` and `version` are the playbook's, not the schedule's). */
function scheduleFields(input: ScheduleInput): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of SCHEDULE_KEYS) if (input[key] !== undefined) fields[key] = input[key];
  return fields;
}
