import { Controller, Logger } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { OnNotification, shownDropped, TenantSchedulers } from '@noetl/platform';
import { planOnNotice, QueueGroups, readNotification, Subjects } from '@noetl/runtime';

/** `execution` notifications over NATS: one scheduler of the group plans the execution, for its tenant (the handler the in-process bus calls too). */
@Controller()
export class ExecutionNotificationsController {
  private readonly plan: ReturnType<typeof planOnNotice>;
  private readonly logger = new Logger(ExecutionNotificationsController.name);

  constructor(schedulers: TenantSchedulers) {
    this.plan = planOnNotice((scope) => schedulers.of(scope));
  }

  @OnNotification(Subjects.execution('*'), QueueGroups.schedulers)
  onExecution(@Payload() message: unknown): void {
    const notice = readNotification.execution(message);
    if (notice) this.plan(notice);
    else this.logger.warn(`dropped an execution notification without its execution id or tenant: ${shownDropped(message)}`);
  }
}
