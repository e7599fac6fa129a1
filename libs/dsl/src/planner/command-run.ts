import type { CommandState, StepRun } from '@noetl/event-kernel';
import type { PlanContext } from './plan-context';

/**
 * The step command an event is about and its run, when that run is still
 * waiting on it. Undefined for an unknown command, a loop shard command
 * (its fan-in is the loop's) or a run that already ended.
 */
export function openRunOf(ctx: PlanContext, commandId: string | null): { command: CommandState; run: StepRun } | undefined {
  const command = commandId === null ? undefined : ctx.state.commands[commandId];
  if (!command || command.loopId !== undefined) return undefined;
  const run = ctx.state.runs[command.runId];
  if (!run || run.status !== 'RUNNING') return undefined;
  return { command, run };
}

/** True when the run already has a command at `attempt` or later (a duplicate trigger must not issue twice). */
export function hasAttempt(ctx: PlanContext, run: StepRun, attempt: number): boolean {
  return run.commandIds.some((id) => (ctx.state.commands[id]?.attempt ?? 0) >= attempt);
}
