import { EventType, type LedgerEvent } from '@noetl/event-kernel';
import { hasAttempt } from './command-run';
import { completeStep } from './complete-step';
import { guardStep } from './fail-step';
import { issueCommand, leaseBudgetFor } from './issue-command';
import type { PlanContext } from './plan-context';
import { onWaitTimeout } from './wait-signal';

type TimerFiredEvent = Extract<LedgerEvent, { event_type: typeof EventType.TimerFired }>;

/**
 * A durable timer fired: a retry timer issues the next attempt of its run's
 * command (the spec rebuilt from the playbook); a sleep timer completes its
 * step with `{slept_until}`; a wait's timer times the wait out. A timer of a
 * run that already ended, or one that fires twice, changes nothing.
 */
export function onTimerFired(ctx: PlanContext, event: TimerFiredEvent): void {
  const timer = ctx.state.timers[event.payload.timer_id];
  const run = timer ? ctx.state.runs[timer.runId] : undefined;
  if (!timer || !run || run.status !== 'RUNNING') return;
  if (timer.purpose === 'sleep') {
    completeStep(ctx, run.runId, { value: { slept_until: timer.dueAt }, trigger: { name: EventType.TimerFired, payload: event.payload } });
    return;
  }
  if (timer.purpose === 'wait') {
    onWaitTimeout(ctx, run, timer, event);
    return;
  }
  const attempt = timer.attempt ?? run.attempts + 1;
  if (hasAttempt(ctx, run, attempt)) return;
  guardStep(ctx, run.runId, run.step, () => issueCommand(ctx, ctx.step(run.step), run.runId, attempt, leaseBudgetFor(attempt)));
}
