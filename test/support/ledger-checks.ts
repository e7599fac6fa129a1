import { EventType, TERMINAL_EXECUTION_EVENTS } from '../../libs/event-kernel/src';
import type { EventView } from '../../libs/runtime/src';

/** Events of one type, in ledger order. */
export function ofType(events: EventView[], type: string): EventView[] {
  return events.filter((e) => e.event_type === type);
}

/** The tool calls the commands' terminal events list (`calls` of command.completed / command.failed), in ledger order, with their step. */
export function callsOf(events: EventView[]): { step: string | null; task: string; status: string }[] {
  return events
    .filter((e) => e.event_type === EventType.CommandCompleted || e.event_type === EventType.CommandFailed)
    .flatMap((e) =>
      ((e.payload as { calls?: { task: string; status: string }[] }).calls ?? []).map((call) => ({
        step: e.step,
        task: call.task,
        status: call.status,
      })),
    );
}

/** The terminal execution events (a healthy ledger has exactly one, and it is the last). */
export function terminalEvents(events: EventView[]): EventView[] {
  return events.filter((e) => (TERMINAL_EXECUTION_EVENTS as readonly string[]).includes(e.event_type));
}

/** The steps entered, in ledger order (one entry per `step.enter`). */
export function enteredSteps(events: EventView[]): (string | null)[] {
  return ofType(events, EventType.StepEnter).map((e) => e.step);
}

/** Position of the first event matching `where`, -1 if none. */
export function positionOf(events: EventView[], where: (e: EventView) => boolean): number {
  return events.findIndex(where);
}

/** Command ids that have more than one event of `type` (e.g. two `command.completed`). */
export function commandsWithRepeated(events: EventView[], type: string): string[] {
  const counts = new Map<string, number>();
  for (const e of ofType(events, type)) {
    if (e.command_id) counts.set(e.command_id, (counts.get(e.command_id) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n > 1).map(([id]) => id);
}
