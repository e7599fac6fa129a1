import { EventType, type LedgerEvent } from '@noetl/event-kernel';
import { hasAttempt, openRunOf } from './command-run';
import { failStep, guardStep } from './fail-step';
import { issueCommand } from './issue-command';
import type { PlanContext } from './plan-context';

type CommandAbandonedEvent = Extract<LedgerEvent, { event_type: typeof EventType.CommandAbandoned }>;

/**
 * The reaper found a command whose lease expired (DESIGN.md invariant 4):
 * the same run's command is issued again as attempt + 1 while attempts are
 * left under its `max_attempts`; then the step fails (`internal`).
 */
export function onCommandAbandoned(ctx: PlanContext, event: CommandAbandonedEvent): void {
  const open = openRunOf(ctx, event.command_id);
  if (!open) return;
  const { command, run } = open;
  if (hasAttempt(ctx, run, command.attempt + 1)) return;
  if (command.attempt < command.maxAttempts) {
    guardStep(ctx, run.runId, run.step, () =>
      issueCommand(ctx, ctx.step(run.step), run.runId, command.attempt + 1, command.maxAttempts),
    );
    return;
  }
  failStep(ctx, run.runId, { kind: 'internal', message: `lease expired after ${command.attempt} attempts` });
}
