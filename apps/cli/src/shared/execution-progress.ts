import type { ExecutionDetail, StepView } from '@noetl/runtime';

export interface ProgressSummary {
  /** Step runs that finished (completed or failed). */
  done: number;
  /** Step runs started so far; grows while routing reaches new steps. */
  seen: number;
  /** The running steps, each with its loop's `done/total` when it is a loop: `fetch, score 3/10`. */
  current: string;
}

/** A step run that has not ended: pending, running or waiting. */
export function isUnfinished(step: StepView): boolean {
  return step.status === 'PENDING' || step.status === 'RUNNING' || step.status === 'WAITING';
}

export function summariseProgress(detail: ExecutionDetail): ProgressSummary {
  const running = [...new Set(detail.steps.filter(isUnfinished).map((s) => s.step))];
  const openLoops = detail.loops.filter((l) => !l.completed);
  const current = running.map((step) => {
    const loop = openLoops.find((l) => l.step === step);
    if (!loop) return step;
    const failed = loop.failed ? ` (${loop.failed} failed)` : '';
    return `${step} ${loop.done}/${loop.total ?? '?'}${failed}`;
  });
  return { done: detail.steps.filter((s) => !isUnfinished(s)).length, seen: detail.steps.length, current: current.join(', ') };
}

/**
 * The step runs that finished since the last call, oldest first. `reported`
 * holds the runs already returned (a step re-entered by a loop-back arc is a
 * new run: it has its own start time) and is updated.
 */
export function newlyFinishedSteps(detail: ExecutionDetail, reported: Set<string>): StepView[] {
  const finished: StepView[] = [];
  for (const step of detail.steps) {
    const key = `${step.step}@${step.started_at}`;
    if (isUnfinished(step) || reported.has(key)) continue;
    reported.add(key);
    finished.push(step);
  }
  return finished;
}

/** `✓ fetch (2 attempts, 1.3 s)` / `✗ fetch failed (3 attempts, 0.2 s)` / `✗ fetch cancelled`. */
export function formatFinishedStep(step: StepView): string {
  const facts = [
    ...(step.attempts > 1 ? [`${step.attempts} attempts`] : []),
    ...(step.completed_at ? [elapsed(step.started_at, step.completed_at)] : []),
  ];
  const suffix = facts.length ? ` (${facts.join(', ')})` : '';
  if (step.status === 'COMPLETED') return `✓ ${step.step}${suffix}`;
  return `✗ ${step.step} ${step.status === 'CANCELLED' ? 'cancelled' : 'failed'}${suffix}`;
}

/** `execution 123 COMPLETED in 0.4 s` (or `RUNNING` so far). */
export function formatOutcome(detail: ExecutionDetail): string {
  const took = detail.completed_at ? ` in ${elapsed(detail.started_at, detail.completed_at)}` : '';
  return `execution ${detail.execution_id} (${detail.path} v${detail.version}) ${detail.status}${took}`;
}

/** `step fetch failed (http): 503 Service Unavailable`; undefined without an error. */
export function formatExecutionError(detail: ExecutionDetail): string | undefined {
  const { error } = detail;
  if (!error) return undefined;
  const where = error.step ? `step ${error.step} failed` : 'execution failed';
  return `${where} (${error.kind}): ${error.message}`;
}

function elapsed(from: string, to: string): string {
  const ms = Math.max(0, Date.parse(to) - Date.parse(from));
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
