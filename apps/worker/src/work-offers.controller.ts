import { Controller, type Type } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { OnNotification } from '@noetl/platform';
import { QueueGroups, Subjects, Worker } from '@noetl/runtime';

interface OfferMessage {
  command_id?: unknown;
  stage_id?: unknown;
  alone?: unknown;
}

/** Maps an offer message to `worker.offer`: a command to claim (alone, when it says so), or a stage to claim a frame of. */
function offer(worker: Worker, message: OfferMessage, kind: 'command' | 'stage'): void {
  const id = kind === 'command' ? message.command_id : message.stage_id;
  if (typeof id !== 'string') return;
  worker.offer(kind === 'command' ? { kind, id, alone: message.alone === true } : { kind, id });
}

/**
 * Offers made to this worker by id (the scheduler picked it for its free
 * slots and tool kinds). Its subjects carry the worker id, so the class is
 * made per process, once the id is known.
 */
export function targetedOffersController(workerId: string): Type<unknown> {
  @Controller()
  class TargetedOffersController {
    constructor(private readonly worker: Worker) {}

    @OnNotification(Subjects.workFor('*', workerId), QueueGroups.workers)
    onCommand(@Payload() message: OfferMessage): void {
      offer(this.worker, message, 'command');
    }

    @OnNotification(Subjects.framesFor('*', workerId), QueueGroups.workers)
    onStage(@Payload() message: OfferMessage): void {
      offer(this.worker, message, 'stage');
    }
  }
  return TargetedOffersController;
}

/** Offers on the broadcast subjects, shared by the workers that run every tool kind: one of the group takes each. */
@Controller()
export class BroadcastOffersController {
  constructor(private readonly worker: Worker) {}

  @OnNotification(Subjects.work('*'), QueueGroups.workers)
  onCommand(@Payload() message: OfferMessage): void {
    offer(this.worker, message, 'command');
  }

  @OnNotification(Subjects.frames('*'), QueueGroups.workers)
  onStage(@Payload() message: OfferMessage): void {
    offer(this.worker, message, 'stage');
  }
}
