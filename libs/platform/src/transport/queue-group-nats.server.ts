import { ServerNats } from '@nestjs/microservices';
import type { Client, NatsMsg } from '@nestjs/microservices/external/nats-client.interface';

/**
 * Nest's NATS server with a queue group per handler rather than one per
 * server: `@OnNotification(subject, queue)` puts the scheduler's handlers in
 * `schedulers` and the worker's in `workers`, so a process running both roles
 * (`noetl server`) joins each group once, and each notification reaches one
 * scheduler and one worker (DESIGN.md s3; seed 001 P4.1).
 *
 * A notification that cannot be handled (a body that is not JSON, a handler
 * that throws) is logged and dropped: notifications are hints and the sweep
 * offers the work again (invariant 5). Nest's server leaves such a failure
 * as an unhandled rejection, which ends the process.
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

  override async handleMessage(channel: string, message: NatsMsg): Promise<void> {
    try {
      await super.handleMessage(channel, message);
    } catch (error) {
      this.logger.warn(`dropped a notification on ${message.subject}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
