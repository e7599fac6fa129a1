import type { LedgerEvent } from '@noetl/event-kernel';
import { EventType } from '@noetl/event-kernel';
import { cancelOpenCommands } from './fail-step';
import type { PlanContext } from './plan-context';

type ExecutionCancelledEvent = Extract<LedgerEvent, { event_type: typeof EventType.ExecutionCancelled }>;

/** The execution was cancelled (api): every command not yet terminal is cancelled. */
export function onExecutionCancelled(ctx: PlanContext, event: ExecutionCancelledEvent): void {
  const reason = event.payload.reason ? `execution cancelled: ${event.payload.reason}` : 'execution cancelled';
  cancelOpenCommands(ctx, reason);
}
