import type { NoetlConfig } from '@noetl/config';
import { scopeOf, Subjects, type Notifications, type Subject } from '../bus/bus';
import type { Offer } from './worker';

/** A pair of subjects a worker takes offers on: commands to claim, stages to claim a frame of. */
export interface OfferSubjects {
  work: Subject<'work'>;
  frames: Subject<'frames'>;
}

/**
 * The subjects of a worker's offers: those made to it by id (the scheduler
 * picked it for its free slots and tool kinds) and, unless it runs only some
 * tool kinds (NOETL_WORKER_TOOLS), its pool's broadcast, which the pool's
 * unrestricted workers share as a queue group. `tenant`: `offeredTenant`.
 */
export function offerSubjects(tenant: string, workerId: string, worker: Pick<NoetlConfig['worker'], 'tools' | 'pool'>): OfferSubjects[] {
  const targeted = { work: Subjects.workFor(tenant, workerId), frames: Subjects.framesFor(tenant, workerId) };
  return worker.tools ? [targeted] : [targeted, { work: Subjects.work(tenant, worker.pool), frames: Subjects.frames(tenant, worker.pool) }];
}

/**
 * What the worker role does with an offer, delivered in process (Engine) or
 * over NATS (the worker module's handlers, after `readNotification`): hand
 * it to `worker.offer` with the tenant, trace context and `alone` it carries.
 */
export function offerHandlers(worker: { offer(offer: Offer): void }): {
  work(message: Notifications['work']): void;
  frames(message: Notifications['frames']): void;
} {
  const traced = (message: { traceparent?: string }) => (message.traceparent !== undefined ? { traceparent: message.traceparent } : {});
  return {
    work: (message) =>
      worker.offer({
        kind: 'command',
        id: message.command_id,
        scope: scopeOf(message),
        ...(message.alone ? { alone: true } : {}),
        ...traced(message),
      }),
    frames: (message) => worker.offer({ kind: 'stage', id: message.stage_id, scope: scopeOf(message), ...traced(message) }),
  };
}
