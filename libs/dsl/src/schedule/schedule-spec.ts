import type { JsonObject } from '../model/json';

/** What a fire time does while the previous run the schedule started is still going (DESIGN.md s6). */
export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'allow'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** When a schedule fires: a 5-field cron expression read in a time zone, or a fixed interval. */
export type ScheduleTiming = { cron: string; timezone: string } | { intervalSeconds: number };

/** A schedule as the runtime keeps it, whatever it was written as (REST body or playbook `metadata.schedule`). */
export interface ScheduleSpec {
  timing: ScheduleTiming;
  /** Deep-merged over the playbook's workload, as an execute request's payload. */
  payload: JsonObject;
  overlap: OverlapPolicy;
  /** How late a fire time may still start; fire times reached later than this (nothing ran) are missed. */
  catchupSeconds: number;
  /** Each fire time starts up to this much later, by an amount fixed per fire time. */
  jitterSeconds: number;
  /** Only when stated: a playbook that says nothing keeps the schedule's current pause state. */
  paused?: boolean;
}

export const DEFAULT_OVERLAP: OverlapPolicy = 'skip';
export const DEFAULT_TIMEZONE = 'UTC';
export const DEFAULT_CATCHUP_SECONDS = 60;
/** Below this a fire time could be missed merely for waiting on the next sweep (Temporal has the same floor). */
export const MIN_CATCHUP_SECONDS = 10;
export const MAX_JITTER_SECONDS = 86_400;

/** The keys of a schedule as written (snake case, as the REST body and `metadata.schedule`). */
export const SCHEDULE_KEYS = [
  'cron',
  'interval_seconds',
  'timezone',
  'payload',
  'overlap',
  'catchup_seconds',
  'jitter_seconds',
  'paused',
] as const;
