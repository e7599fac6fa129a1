import { Controller, type Type } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { OnNotification } from '@noetl/platform';
import { QueueGroups, scopeOfMessage, Subjects, Worker } from '@noetl/runtime';

interface OfferMessage {
  command_id?: unknown;
  stage_id?: unknown;
  tenant_id?: unknown;
  organization_id?: unknown;
  alone?: unknown;
  traceparent?: unknown;
}

/** Maps an offer message to `worker.offer`: a command to claim (alone, when it says so), or a stage to claim a frame of, of the tenant it names, with the trace context it carries. */
function offer(worker: Worker, message: OfferMessage, kind: 'command' | 'stage'): void {
  const id = kind === 'command' ? message.command_id : message.stage_id;
  const scope = scopeOfMessage(message);
  if (typeof id !== 'string' || !scope) return;
  const traceparent = typeof message.traceparent === 'string' ? { traceparent: message.traceparent } : {};
  worker.offer({ kind, id, scope, ...(kind === 'command' && message.alone === true ? { alone: true } : {}), ...traceparent });
}

/**
 * Offers made to this worker by id (the scheduler picked it for its free
 * slots and tool kinds). Its subjects carry the worker id and the tenant
 * it serves (`offeredTenant`), so the class is made per process, once they are known.
 */
export function targetedOffersController(tenant: string, workerId: string): Type<unknown> {
  @Controller()
  class TargetedOffersController {
    constructor(private readonly worker: Worker) {}

    @OnNotification(Subjects.workFor(tenant, workerId), QueueGroups.workers)
    onCommand(@Payload() message: OfferMessage): void {
      offer(this.worker, message, 'command');
    }

    @OnNotification(Subjects.framesFor(tenant, workerId), QueueGroups.workers)
    onStage(@Payload() message: OfferMessage): void {
      offer(this.worker, message, 'stage');
    }
  }
  return TargetedOffersController;
}

/** Offers on the broadcast subjects of the worker's pool, shared by its workers that run every tool kind: one of the group takes each. */
export function broadcastOffersController(tenant: string, pool: string | undefined): Type<unknown> {
  @Controller()
  class BroadcastOffersController {
    constructor(private readonly worker: Worker) {}

    @OnNotification(Subjects.work(tenant, pool), QueueGroups.workers)
    onCommand(@Payload() message: OfferMessage): void {
      offer(this.worker, message, 'command');
    }

    @OnNotification(Subjects.frames(tenant, pool), QueueGroups.workers)
    onStage(@Payload() message: OfferMessage): void {
      offer(this.worker, message, 'stage');
    }
  }
  return BroadcastOffersController;
}
