import { Controller, Logger, type Type } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { OnNotification, shownDropped } from '@noetl/platform';
import { offerHandlers, QueueGroups, readNotification, Worker, type OfferSubjects } from '@noetl/runtime';

/**
 * The worker's offers over NATS on one pair of subjects (`offerSubjects`:
 * those made to it by id, its pool's broadcast), handed to the handlers the
 * in-process bus calls too. The subjects carry the worker id and the tenant
 * it serves, so the class is made per process, once they are known.
 */
export function workOffersController(subjects: OfferSubjects): Type<unknown> {
  @Controller()
  class WorkOffersController {
    private readonly offer: ReturnType<typeof offerHandlers>;
    private readonly logger = new Logger('WorkOffersController');

    constructor(worker: Worker) {
      this.offer = offerHandlers(worker);
    }

    @OnNotification(subjects.work, QueueGroups.workers)
    onCommand(@Payload() message: unknown): void {
      const offer = readNotification.work(message);
      if (offer) this.offer.work(offer);
      else this.logger.warn(`dropped a work offer without its command id, execution id or tenant: ${shownDropped(message)}`);
    }

    @OnNotification(subjects.frames, QueueGroups.workers)
    onStage(@Payload() message: unknown): void {
      const offer = readNotification.frames(message);
      if (offer) this.offer.frames(offer);
      else this.logger.warn(`dropped a frames offer without its stage id, execution id or tenant: ${shownDropped(message)}`);
    }
  }
  return WorkOffersController;
}
