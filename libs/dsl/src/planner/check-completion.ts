import { EventType, liveWork, type ExecutionState, type StepRun, type TimerState } from '@noetl/event-kernel';
import type { Playbook } from '../model';
import type { PlanContext } from './plan-context';

/**
 * The execution completes when nothing is left (DSL.md s2.1): no running
 * run, no pending arrival, no unfired timer of a running run (a wait's
 * timeout outlives the signal that ended it), no running loop. Its result is
 * `executor.final_step`'s when that step completed, else the result of the
 * step that completed last, by reference when it is stored so.
 */
export function checkCompletion(ctx: PlanContext): void {
  const state = ctx.state;
  if (!ctx.running || !isSettled(state)) return;
  const stored = executionResult(ctx.playbook, state);
  ctx.emit({
    type: EventType.ExecutionCompleted,
    status: 'COMPLETED',
    payload: stored?.ref ? { result_ref: stored.ref } : { result: stored?.value ?? null },
  });
}

export function isSettled(state: ExecutionState): boolean {
  const live = liveWork(state);
  return (
    !hasAny(live.runs) &&
    !Object.values(state.pending).some((arrivals) => arrivals.length > 0) &&
    !Object.keys(live.timers).some((timerId) => isLiveTimer(state, state.timers[timerId]!)) &&
    !hasAny(live.loops)
  );
}

function hasAny(ids: Record<string, true>): boolean {
  for (const id in ids) if (Object.prototype.hasOwnProperty.call(ids, id)) return true;
  return false;
}

/** A timer that can still act: unfired, and its run still running (a timer of an ended run changes nothing when it fires). */
export function isLiveTimer(state: ExecutionState, timer: TimerState): boolean {
  return !timer.fired && state.runs[timer.runId]?.status === 'RUNNING';
}

/**
 * `final_step`'s latest result, else the latest completed run eligible to be
 * the result. A run is not eligible when its step has `on_no_match: quiet`
 * and it fired no arc: `quiet` ends a branch without offering its result
 * (`complete`, the default, does offer it).
 */
export function executionResult(playbook: Playbook, state: ExecutionState): ExecutionState['results'][string] | undefined {
  const final = playbook.executor.finalStep;
  if (final !== undefined && state.results[final]) return state.results[final];
  const run = lastEligibleRun(playbook, state);
  if (!run) return undefined;
  return run.resultRef ? { ref: run.resultRef } : { value: run.result ?? null };
}

function lastEligibleRun(playbook: Playbook, state: ExecutionState): StepRun | undefined {
  const quiet = new Set(playbook.steps.filter((step) => step.next.onNoMatch === 'quiet').map((step) => step.name));
  const fired = new Set<string>();
  for (const run of Object.values(state.runs)) for (const source of run.arrivals) fired.add(source);
  for (const arrivals of Object.values(state.pending)) for (const source of arrivals) fired.add(source);
  const eligible = (run: StepRun | undefined): run is StepRun =>
    run !== undefined && run.status === 'COMPLETED' && (!quiet.has(run.step) || fired.has(run.runId));

  const lastStep = state.lastCompletedStep;
  const lastRunId = lastStep === null ? undefined : state.steps[lastStep]?.lastRunId;
  const last = lastRunId === undefined ? undefined : state.runs[lastRunId];
  if (eligible(last)) return last;
  let best: StepRun | undefined;
  for (const run of Object.values(state.runs)) {
    if (eligible(run) && (!best || (run.completedAt ?? '') >= (best.completedAt ?? ''))) best = run;
  }
  return best;
}
