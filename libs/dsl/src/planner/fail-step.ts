import { EventType, type EventError } from '@noetl/event-kernel';
import { TemplateError } from '../expressions';
import { StepFailure, type PlanContext } from './plan-context';

const OPEN_COMMAND = new Set(['ISSUED', 'CLAIMED', 'RUNNING']);

/** The error a throw inside a step's handling stands for, or undefined when it is not a step failure (a bug). */
export function stepErrorOf(thrown: unknown, step: string): EventError | undefined {
  if (thrown instanceof StepFailure) return { ...thrown.error, step };
  if (thrown instanceof TemplateError) {
    return { kind: 'template', message: thrown.message, expression: thrown.expression, step };
  }
  return undefined;
}

/**
 * Runs one rule of a step run; a template error or a StepFailure thrown
 * inside it fails the run (and so the execution), or only the execution when
 * the run already ended. Anything else is a bug (or a payload the scheduler
 * did not preload) and propagates to the caller.
 */
export function guardStep(ctx: PlanContext, runId: string, step: string, rule: () => void): void {
  try {
    rule();
  } catch (thrown) {
    const error = stepErrorOf(thrown, step);
    if (!error) throw thrown;
    if (ctx.state.runs[runId]?.status === 'RUNNING') failStep(ctx, runId, error);
    else failExecution(ctx, error);
  }
}

/** `step.exit FAILED`, then the execution fails (DSL.md s2.1: an unhandled step failure fails the execution). */
export function failStep(ctx: PlanContext, runId: string, error: EventError): void {
  const run = ctx.state.runs[runId];
  if (!run || run.status !== 'RUNNING' || !ctx.running) return;
  const stepError: EventError = { ...error, step: run.step };
  ctx.emit({
    type: EventType.StepExit,
    step: run.step,
    status: 'FAILED',
    payload: { step: run.step, run_id: runId, status: 'FAILED', error: stepError },
  });
  failExecution(ctx, stepError);
}

/** `execution.failed {error: {step, kind, message}}`, then every open command is cancelled. */
export function failExecution(ctx: PlanContext, error: EventError): void {
  if (!ctx.running) return;
  const summary: EventError = { step: error.step, kind: error.kind, message: error.message };
  if (error.expression !== undefined) summary.expression = error.expression;
  ctx.emit({ type: EventType.ExecutionFailed, status: 'FAILED', payload: { error: summary } });
  cancelOpenCommands(ctx, `execution failed: ${error.step ? `step ${error.step}: ` : ''}${error.message}`);
}

/** `command.cancelled` for every command not yet terminal (an abandoned one has a successor or is dead). */
export function cancelOpenCommands(ctx: PlanContext, reason: string): void {
  for (const command of Object.values(ctx.state.commands)) {
    if (!OPEN_COMMAND.has(command.status)) continue;
    ctx.emit({
      type: EventType.CommandCancelled,
      step: command.step,
      commandId: command.commandId,
      payload: { reason },
    });
  }
}
