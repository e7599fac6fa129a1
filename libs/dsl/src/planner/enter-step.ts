import { EventType, type ChunkOrigin } from '@noetl/event-kernel';
import type { Step } from '../model';
import { completeStep } from './complete-step';
import { failExecution, guardStep } from './fail-step';
import { DEFAULT_COMMAND_MAX_ATTEMPTS, issueCommand } from './issue-command';
import { openLoop } from './open-loop';
import type { PlanContext } from './plan-context';
import { isSleepStep, scheduleSleep } from './schedule-sleep';
import { isWaitStep, startWait } from './wait-signal';

/**
 * Enters a step (a new activation, DSL.md s2.1): `step.enter` carrying the
 * arrivals it consumes, then by the step's shape: a loop opens its stage; a
 * routing step (no tool) completes at once with `{}`; a `sleep` tool waits on
 * a durable timer; a `wait` tool parks until a signal (or its timeout);
 * anything else becomes a `command.issued` for a worker.
 * `chunk`: the streamed chunk an `on: call.partial` arc enters it for.
 */
export function enterStep(ctx: PlanContext, name: string, arrivals: string[], chunk?: ChunkOrigin): void {
  if (!ctx.running) return;
  if (!ctx.hasStep(name)) {
    failExecution(ctx, { kind: 'internal', message: `unknown step "${name}"`, step: name });
    return;
  }
  const step = ctx.step(name);
  const runId = ctx.newId();
  ctx.emit({
    type: EventType.StepEnter,
    step: name,
    payload: { step: name, run_id: runId, activation: (ctx.state.steps[name]?.runs ?? 0) + 1, arrivals, ...(chunk ? { chunk } : {}) },
  });
  guardStep(ctx, runId, name, () => startRun(ctx, step, runId));
}

function startRun(ctx: PlanContext, step: Step, runId: string): void {
  if (step.loop) {
    openLoop(ctx, step, runId);
  } else if (!step.tool || step.tool.tasks.length === 0) {
    completeStep(ctx, runId, { value: {}, trigger: { name: EventType.StepEnter, payload: { step: step.name, run_id: runId } } });
  } else if (isSleepStep(step)) {
    scheduleSleep(ctx, step, runId);
  } else if (isWaitStep(step)) {
    startWait(ctx, step, runId);
  } else {
    issueCommand(ctx, step, runId, 1, DEFAULT_COMMAND_MAX_ATTEMPTS);
  }
}
