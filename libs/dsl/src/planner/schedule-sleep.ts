import { EventType } from '@noetl/event-kernel';
import type { Step } from '../model';
import { toPlainJson } from '../scope';
import { StepFailure, type PlanContext } from './plan-context';

/** A step whose tool is one `sleep` task: a durable timer, no worker held (DSL.md s3). */
export function isSleepStep(step: Step): boolean {
  const tasks = step.tool?.tasks ?? [];
  return tasks.length === 1 && tasks[0]?.kind === 'sleep';
}

/**
 * `timer.scheduled {purpose: sleep}` due `seconds` (rendered) from now, or at
 * `until` (an ISO time, rendered). A past `until` is due at once. A value
 * that is neither fails the step.
 */
export function scheduleSleep(ctx: PlanContext, step: Step, runId: string): void {
  const task = step.tool?.tasks[0];
  const scope = ctx.scope(undefined, step);
  const config = task?.config ?? {};
  let dueMs: number;
  if (config['until'] !== undefined && config['until'] !== null) {
    const until = toPlainJson(ctx.env.renderer.renderValue(config['until'], scope));
    dueMs = typeof until === 'string' ? Date.parse(until) : Number.NaN;
    if (!Number.isFinite(dueMs)) throw invalid(step, `"until" must be an ISO time, got ${JSON.stringify(until)}`);
  } else {
    const raw = toPlainJson(ctx.env.renderer.renderValue(config['seconds'] ?? null, scope));
    const seconds = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
      throw invalid(step, `"seconds" must be a non-negative number, got ${JSON.stringify(raw)}`);
    }
    dueMs = ctx.env.now.getTime() + Math.round(seconds * 1000);
  }
  // A sleep holds no worker, so it has no ceiling; only a due time past what a date can hold is refused.
  if (Math.abs(dueMs) > MAX_DATE_MS)
    throw invalid(
      step,
      `the due time is beyond the year 275760 (${config['until'] !== undefined && config['until'] !== null ? '"until"' : '"seconds"'} too large)`,
    );
  const timerId = ctx.newId();
  ctx.emit({
    type: EventType.TimerScheduled,
    step: step.name,
    payload: { timer_id: timerId, purpose: 'sleep', step: step.name, run_id: runId, due_at: new Date(dueMs).toISOString() },
  });
}

/** The largest time a JavaScript Date holds (ECMA-262: 8.64e15 ms from the epoch). */
const MAX_DATE_MS = 8.64e15;

function invalid(step: Step, reason: string): StepFailure {
  return new StepFailure({ kind: 'internal', message: `sleep step ${step.name}: ${reason}`, step: step.name });
}
