import { EventType, type LedgerEvent } from '@noetl/event-kernel';
import { completeStep } from './complete-step';
import { openRunOf } from './command-run';
import type { PlanContext } from './plan-context';

type CommandCompletedEvent = Extract<LedgerEvent, { event_type: typeof EventType.CommandCompleted }>;

/**
 * A step's command completed: the `ctx.*` writes its policies made in the
 * worker are recorded first, then the step completes with the command's
 * result (inline, or resolved from its ref and kept by ref on `step.exit`).
 */
export function onCommandCompleted(ctx: PlanContext, event: CommandCompletedEvent): void {
  const open = openRunOf(ctx, event.command_id);
  if (!open) return;
  const { run } = open;
  const p = event.payload;
  if (p.ctx && Object.keys(p.ctx).length > 0) {
    ctx.emit({ type: EventType.CtxUpdated, step: run.step, payload: { set: p.ctx, step: run.step } });
  }
  const value = p.result_ref ? ctx.env.resolve(p.result_ref) : (p.result ?? null);
  completeStep(ctx, run.runId, {
    value,
    ...(p.result_ref ? { ref: p.result_ref } : {}),
    trigger: { name: EventType.CommandCompleted, payload: p },
  });
}
