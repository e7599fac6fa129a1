import { readSchedule, type ScheduleSpec } from '../schedule';
import type { ParseContext } from './parse-context';
import { isRawMap } from './raw-shape';

/** `metadata.schedule` (DESIGN.md s6 schedule fields), checked as the REST body is; absent when not given. */
export function normaliseSchedule(metadata: unknown, ctx: ParseContext): ScheduleSpec | undefined {
  if (!isRawMap(metadata) || metadata.schedule === undefined || metadata.schedule === null) return undefined;
  return readSchedule(metadata.schedule, 'metadata.schedule', (path, message) => ctx.problems.add(path, message));
}
