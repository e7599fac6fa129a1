import type { OverlapPolicy } from '@noetl/dsl';
import type { JsonObject } from '@noetl/event-kernel';

/**
 * A schedule as `POST /api/schedules` takes it (DESIGN.md s6), and as
 * `PATCH` takes a part of it: a playbook path (and a pinned version), a
 * 5-field `cron` read in `timezone` (default UTC) or an `interval_seconds`,
 * the execution payload, the overlap policy, the catch-up window, a jitter
 * and whether it is paused.
 */
export interface ScheduleInput {
  path?: string;
  version?: number | null;
  cron?: string;
  interval_seconds?: number;
  timezone?: string;
  payload?: JsonObject;
  overlap?: OverlapPolicy;
  catchup_seconds?: number;
  jitter_seconds?: number;
  paused?: boolean;
}

/** A schedule as the API shows it: its definition and where its fire times stand. */
export interface ScheduleView {
  schedule_id: string;
  path: string;
  /** Null: each fire runs the latest version. */
  version: number | null;
  /** `api`, or `playbook` for one a playbook's `metadata.schedule` declared. */
  source: 'api' | 'playbook';
  cron: string | null;
  timezone: string | null;
  interval_seconds: number | null;
  payload: JsonObject;
  overlap: OverlapPolicy;
  catchup_seconds: number;
  jitter_seconds: number;
  paused: boolean;
  /** The next fire time, and when it starts (its jitter added); null while paused. */
  next_fire_time: string | null;
  next_due_time: string | null;
  /** A fire time `buffer_one` holds until the running execution ends. */
  buffered_fire_time: string | null;
  last_fire_time: string | null;
  last_execution_id: string | null;
  /** The latest fire time reached more than `catchup_seconds` late (nothing ran), if any. */
  last_missed_time: string | null;
  /** Executions started (manual triggers included), and fire times the overlap policy dropped. */
  fired: number;
  skipped: number;
  created_at: string;
  updated_at: string;
}

/** `POST /api/schedules/{id}/trigger`: the execution started now. */
export interface TriggeredSchedule {
  schedule_id: string;
  execution_id: string;
  fire_time: string;
}
