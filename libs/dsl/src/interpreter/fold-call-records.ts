import type { CallRecord } from './interpreter-deps';

/**
 * One record per task and outcome, in first-seen order: attempts and
 * durations summed, the last error kept. A paginated call reports its pages
 * folded this way, so its history (one `call.done` per record) stays
 * bounded however many pages it read (issue 14: 100,000 pages made 200,000
 * events in one report).
 */
export function foldCallRecords(records: readonly CallRecord[]): CallRecord[] {
  const folded = new Map<string, CallRecord>();
  for (const record of records) {
    const key = `${record.status}\u0000${record.task}`;
    const seen = folded.get(key);
    if (!seen) folded.set(key, { ...record });
    else {
      seen.attempts += record.attempts;
      seen.durationMs += record.durationMs;
      if (record.error) seen.error = record.error;
    }
  }
  return [...folded.values()];
}
