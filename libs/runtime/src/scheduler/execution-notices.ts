import type { TenantScope } from '@noetl/storage';
import { scopeOf, type Notifications } from '../bus/bus';

/**
 * What the scheduler role does with an `execution` notification, delivered
 * in process (Engine) or over NATS (the scheduler module's handler, after
 * `readNotification`): its tenant's scheduler plans the execution's new
 * events. A process without the role for that tenant has no scheduler and ignores it.
 */
export function planOnNotice(
  schedulerOf: (scope: TenantScope) => { process(executionId: string): Promise<unknown> } | undefined,
): (message: Notifications['execution']) => void {
  return (message) => void schedulerOf(scopeOf(message))?.process(message.execution_id);
}
