import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { OnNotification } from '@noetl/platform';
import { QueueGroups, Scheduler, Subjects } from '@noetl/runtime';

/** `{execution_id}`: the execution has events to plan; one scheduler of the group plans them. */
@Controller()
export class ExecutionNotificationsController {
  constructor(private readonly scheduler: Scheduler) {}

  @OnNotification(Subjects.execution('*'), QueueGroups.schedulers)
  onExecution(@Payload() message: { execution_id?: unknown }): void {
    if (typeof message.execution_id === 'string') void this.scheduler.process(message.execution_id);
  }
}
