import type { JsonObject } from '../model';
import { cronProblem, isTimeZone } from './fire-times';
import {
  DEFAULT_CATCHUP_SECONDS,
  DEFAULT_OVERLAP,
  DEFAULT_TIMEZONE,
  MAX_JITTER_SECONDS,
  MIN_CATCHUP_SECONDS,
  OVERLAP_POLICIES,
  SCHEDULE_KEYS,
  type OverlapPolicy,
  type ScheduleSpec,
  type ScheduleTiming,
} from './schedule-spec';

/** Reports one problem at a path under the schedule (`cron`, `metadata.schedule.overlap`, ...). */
export type ScheduleReport = (path: string, message: string) => void;

/**
 * A schedule as written, `{cron, timezone} | {interval_seconds}` with
 * `payload`, `overlap`, `catchup_seconds`, `jitter_seconds` and `paused`
 * (the REST body and a playbook's `metadata.schedule` alike), checked whole:
 * every problem is reported at its path under `path`, and nothing is returned
 * when there was one.
 */
export function readSchedule(raw: unknown, path: string, report: ScheduleReport): ScheduleSpec | undefined {
  if (!isRecord(raw)) {
    report(path, 'must be a mapping like {cron: "0 * * * *"} or {interval_seconds: 60}');
    return undefined;
  }
  let ok = true;
  const problem = (key: string, message: string): undefined => {
    ok = false;
    report(at(path, key), message);
    return undefined;
  };
  for (const key of Object.keys(raw)) {
    if (!(SCHEDULE_KEYS as readonly string[]).includes(key))
      problem(key, `unknown key "${key}" (a schedule has ${SCHEDULE_KEYS.join(', ')})`);
  }
  const timing = readTiming(raw, problem);
  const payload = raw['payload'] ?? {};
  if (!isRecord(payload)) problem('payload', 'must be a mapping (it is merged over the playbook workload)');
  const overlap = raw['overlap'] ?? DEFAULT_OVERLAP;
  if (!isOverlap(overlap)) problem('overlap', `must be one of ${OVERLAP_POLICIES.join(', ')}`);
  const catchupSeconds = readInteger(raw, 'catchup_seconds', DEFAULT_CATCHUP_SECONDS, MIN_CATCHUP_SECONDS, undefined, problem);
  const jitterSeconds = readInteger(raw, 'jitter_seconds', 0, 0, MAX_JITTER_SECONDS, problem);
  const paused = raw['paused'];
  if (paused !== undefined && typeof paused !== 'boolean') problem('paused', 'must be true or false');
  if (!ok || !timing || !isOverlap(overlap) || catchupSeconds === undefined || jitterSeconds === undefined) return undefined;
  return {
    timing,
    // A schedule is written in YAML or JSON: a mapping of it holds JSON values only.
    payload: payload as JsonObject,
    overlap,
    catchupSeconds,
    jitterSeconds,
    ...(typeof paused === 'boolean' ? { paused } : {}),
  };
}

function readTiming(raw: Record<string, unknown>, problem: (key: string, message: string) => undefined): ScheduleTiming | undefined {
  const { cron, interval_seconds: interval, timezone } = raw;
  if ((cron === undefined) === (interval === undefined))
    return problem(cron === undefined ? '' : 'interval_seconds', 'give exactly one of "cron" and "interval_seconds"');
  if (interval !== undefined) {
    if (timezone !== undefined) return problem('timezone', '"timezone" applies to a cron schedule; an interval counts from the Unix epoch');
    if (typeof interval !== 'number' || !Number.isInteger(interval) || interval < 1)
      return problem('interval_seconds', 'must be a whole number of seconds, at least 1');
    return { intervalSeconds: interval };
  }
  const why = typeof cron === 'string' ? cronProblem(cron) : 'must be a cron expression like "*/5 * * * *"';
  if (why) problem('cron', typeof cron === 'string' ? `invalid cron expression "${cron}": ${why}` : why);
  const zone = timezone ?? DEFAULT_TIMEZONE;
  const knownZone = typeof zone === 'string' && isTimeZone(zone);
  if (!knownZone) problem('timezone', `unknown time zone ${JSON.stringify(zone)} (an IANA name like "Europe/Berlin")`);
  if (why || !knownZone || typeof cron !== 'string') return undefined;
  return { cron: cron.trim().split(/\s+/).join(' '), timezone: zone };
}

function readInteger(
  raw: Record<string, unknown>,
  key: string,
  fallback: number,
  min: number,
  max: number | undefined,
  problem: (key: string, message: string) => undefined,
): number | undefined {
  const value = raw[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
    return problem(key, `must be a whole number of seconds${max !== undefined ? ` from ${min} to ${max}` : `, at least ${min}`}`);
  }
  return value;
}

function isOverlap(value: unknown): value is OverlapPolicy {
  return (OVERLAP_POLICIES as readonly unknown[]).includes(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(path: string, key: string): string {
  if (!key) return path;
  return path ? `${path}.${key}` : key;
}
