import { firstFire, readSchedule, type ScheduleSpec, type ScheduleTiming } from '@noetl/dsl';
import type { ScheduleDefinition, ScheduleFireState, ScheduleRow } from '@noetl/storage';
import { RuntimeError } from '../runtime-error';
import type { ScheduleView } from './schedule-types';

/** The schedule fields as written (`cron`, `interval_seconds`, ...), checked whole; `invalid_request` lists every problem. */
export function scheduleSpecOf(fields: Record<string, unknown>): ScheduleSpec {
  const problems: { path: string; message: string }[] = [];
  const spec = readSchedule(fields, '', (path, message) => problems.push({ path, message }));
  if (!spec) {
    throw new RuntimeError(
      'invalid_request',
      `invalid schedule: ${problems.map((p) => `${p.path || 'schedule'}: ${p.message}`).join('; ')}`,
      problems,
    );
  }
  return spec;
}

/** The row's definition of a checked spec for a playbook path (and pinned version). */
export function definitionOf(path: string, version: number | null, spec: ScheduleSpec, paused: boolean): ScheduleDefinition {
  const { timing } = spec;
  return {
    path,
    version,
    cron: 'cron' in timing ? timing.cron : null,
    timezone: 'cron' in timing ? timing.timezone : null,
    interval_seconds: 'intervalSeconds' in timing ? timing.intervalSeconds : null,
    payload: spec.payload,
    overlap: spec.overlap,
    catchup_seconds: spec.catchupSeconds,
    jitter_seconds: spec.jitterSeconds,
    paused,
  };
}

/** A row's schedule fields as written: what a PATCH is laid over. */
export function fieldsOf(definition: ScheduleDefinition): Record<string, unknown> {
  return {
    ...(definition.cron !== null
      ? { cron: definition.cron, timezone: definition.timezone }
      : { interval_seconds: definition.interval_seconds }),
    payload: definition.payload,
    overlap: definition.overlap,
    catchup_seconds: definition.catchup_seconds,
    jitter_seconds: definition.jitter_seconds,
    paused: definition.paused,
  };
}

export function timingOf(definition: ScheduleDefinition): ScheduleTiming {
  if (definition.cron !== null) return { cron: definition.cron, timezone: definition.timezone ?? 'UTC' };
  return { intervalSeconds: definition.interval_seconds ?? 1 };
}

/**
 * Where the fire times stand after a schedule is written: a new schedule, a
 * changed timing or jitter, and a resumed one start at the first fire time
 * after `now` (the fire times of a pause are not caught up); a pause drops a
 * held fire time; anything else keeps the state.
 */
export function fireStateAfter(
  scheduleId: string,
  before: (ScheduleDefinition & ScheduleFireState) | undefined,
  after: ScheduleDefinition,
  now: Date,
): ScheduleFireState {
  const restart =
    !before ||
    before.cron !== after.cron ||
    before.timezone !== after.timezone ||
    before.interval_seconds !== after.interval_seconds ||
    before.jitter_seconds !== after.jitter_seconds ||
    (before.paused && !after.paused);
  if (restart) {
    const { nextFireAt, nextDueAt } = firstFire(scheduleId, timingOf(after), after.jitter_seconds, now);
    return { next_fire_at: nextFireAt, next_due_at: nextDueAt, buffered_fire_at: null };
  }
  const state = { next_fire_at: before.next_fire_at, next_due_at: before.next_due_at, buffered_fire_at: before.buffered_fire_at };
  return after.paused ? { ...state, buffered_fire_at: null } : state;
}

export function scheduleView(row: ScheduleRow): ScheduleView {
  const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);
  return {
    schedule_id: row.schedule_id,
    path: row.path,
    version: row.version,
    source: row.source,
    cron: row.cron,
    timezone: row.timezone,
    interval_seconds: row.interval_seconds,
    payload: row.payload,
    overlap: row.overlap,
    catchup_seconds: row.catchup_seconds,
    jitter_seconds: row.jitter_seconds,
    paused: row.paused,
    next_fire_time: row.paused ? null : iso(row.next_fire_at),
    next_due_time: row.paused ? null : iso(row.next_due_at),
    buffered_fire_time: iso(row.buffered_fire_at),
    last_fire_time: iso(row.last_fire_at),
    last_execution_id: row.last_execution_id,
    last_missed_time: iso(row.last_missed_at),
    fired: row.fire_count,
    skipped: row.skip_count,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
