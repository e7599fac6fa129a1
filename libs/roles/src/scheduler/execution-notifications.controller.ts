import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { OnNotification, TenantSchedulers } from '@noetl/platform';
import { QueueGroups, scopeOfMessage, Subjects } from '@noetl/runtime';

/** `{execution_id, tenant_id, organization_id}`: the execution has events to plan; one scheduler of the group plans them, for its tenant. */
@Controller()
export class ExecutionNotificationsController {
  constructor(private readonly schedulers: TenantSchedulers) {}

  @OnNotification(Subjects.execution('*'), QueueGroups.schedulers)
  onExecution(@Payload() message: { execution_id?: unknown; tenant_id?: unknown; organization_id?: unknown }): void {
    const scope = scopeOfMessage(message);
    if (typeof message.execution_id === 'string' && scope) void this.schedulers.of(scope)?.process(message.execution_id);
  }
}
