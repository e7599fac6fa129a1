import { EventType, type LedgerEvent } from '@noetl/event-kernel';
import { hasAttempt, openRunOf } from './command-run';
import { failStep, guardStep } from './fail-step';
import { issueCommand } from './issue-command';
import type { PlanContext } from './plan-context';

/** The error code of a step failed because its command kept taking its worker down. */
export const SUSPECTED_POISON = 'suspected_poison';

type CommandAbandonedEvent = Extract<LedgerEvent, { event_type: typeof EventType.CommandAbandoned }>;

/**
 * The reaper found a command whose lease expired (DESIGN.md invariant 4):
 * the same run's command is issued again as attempt + 1 while attempts are
 * left under its `max_attempts`; then the step fails (`internal`).
 *
 * A command lost while its worker ran it (a death: the process crashed, was
 * OOM-killed, or the step itself took it down) is issued again to run alone
 * on its worker, so that a death then is its own, not a neighbour's; lost
 * again there, it is a suspected poison and the step fails rather than kill
 * a third process (issue 15 defect 3).
 */
export function onCommandAbandoned(ctx: PlanContext, event: CommandAbandonedEvent): void {
  const open = openRunOf(ctx, event.command_id);
  if (!open) return;
  const { command, run } = open;
  if (hasAttempt(ctx, run, command.attempt + 1)) return;
  const lost = event.payload.worker_lost === true;
  if (lost && command.runAlone) {
    const deaths = run.commandIds.filter((id) => ctx.state.commands[id]?.lost).length;
    failStep(ctx, run.runId, {
      kind: 'internal',
      code: SUSPECTED_POISON,
      message: `suspected poison: the worker running step ${run.step} died or stopped answering on ${deaths} attempts, the last time running it alone; it is not run again`,
    });
    return;
  }
  if (command.attempt < command.maxAttempts) {
    guardStep(ctx, run.runId, run.step, () =>
      issueCommand(ctx, ctx.step(run.step), run.runId, command.attempt + 1, command.maxAttempts, {
        runAlone: lost || command.runAlone === true,
      }),
    );
    return;
  }
  failStep(ctx, run.runId, { kind: 'internal', message: `lease expired after ${command.attempt} attempts` });
}
