import { EventPattern } from '@nestjs/microservices';

/** A NATS notification handler in the queue group `queue` (see QueueGroupNatsServer). */
export function OnNotification(subject: string, queue: string): MethodDecorator {
  return EventPattern(subject, { queue });
}
