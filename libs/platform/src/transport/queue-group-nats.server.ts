import { ServerNats } from '@nestjs/microservices';
import type { Client } from '@nestjs/microservices/external/nats-client.interface';

/**
 * Nest's NATS server with a queue group per handler rather than one per
 * server: `@OnNotification(subject, queue)` puts the scheduler's handlers in
 * `schedulers` and the worker's in `workers`, so a process running both roles
 * (`noetl server`) joins each group once, and each notification reaches one
 * scheduler and one worker (DESIGN.md s3; seed 001 P4.1).
 */
export class QueueGroupNatsServer extends ServerNats {
  override bindEvents(client: Client): void {
    for (const [pattern, handler] of this.messageHandlers) {
      const queue: unknown = handler.extras?.['queue'];
      client.subscribe(pattern, {
        ...(typeof queue === 'string' ? { queue } : {}),
        callback: this.getMessageHandler(pattern).bind(this),
      });
    }
  }
}
