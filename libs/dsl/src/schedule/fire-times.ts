import { CronExpressionParser } from 'cron-parser';
import type { ScheduleTiming } from './schedule-spec';

/**
 * The first fire time strictly after `after`. A cron expression is read in
 * its time zone (a wall time skipped by a DST change fires at the first
 * instant after the gap; a repeated one fires once); an interval fires at the
 * multiples of its length since the Unix epoch, so every process computes the
 * same fire times.
 */
export function nextFireTime(timing: ScheduleTiming, after: Date): Date {
  if ('intervalSeconds' in timing) {
    const step = timing.intervalSeconds * 1000;
    return new Date((Math.floor(after.getTime() / step) + 1) * step);
  }
  return CronExpressionParser.parse(timing.cron, { currentDate: after, tz: timing.timezone }).next().toDate();
}

/** The last fire time strictly before `before`. */
export function previousFireTime(timing: ScheduleTiming, before: Date): Date {
  if ('intervalSeconds' in timing) {
    const step = timing.intervalSeconds * 1000;
    return new Date((Math.ceil(before.getTime() / step) - 1) * step);
  }
  return CronExpressionParser.parse(timing.cron, { currentDate: before, tz: timing.timezone }).prev().toDate();
}

/**
 * Why a cron expression cannot be a schedule's, or undefined when it can:
 * exactly five fields (minute, hour, day of month, month, day of week) that
 * the parser accepts, and no hashed `H` values (the parser would pick them at
 * random, so two schedulers would disagree on the fire times).
 */
export function cronProblem(cron: string): string | undefined {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return `must have 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  if (fields.some((field) => field.split(',').some((part) => /^h/i.test(part)))) return 'hashed values (H) are not supported';
  try {
    CronExpressionParser.parse(cron, { tz: 'UTC' });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** True for an IANA time zone name the runtime knows (e.g. `Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
