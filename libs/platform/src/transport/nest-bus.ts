import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import {
  NATS_RECONNECT_FOREVER,
  type Bus,
  type NotificationKind,
  type Notifications,
  type Subject,
  type Unsubscribe,
} from '@noetl/runtime';
import type { Logger } from 'pino';

/**
 * The `Bus` port on Nest's NATS transport, for separate services (DESIGN.md
 * s3): publishing goes through a `ClientProxy`; receiving is the apps'
 * `@OnNotification` handlers' job, so `subscribe` is not offered here.
 * Messages are hints (invariant 5): a publish that fails is logged and the
 * sweep offers the work again.
 */
export class NestBus implements Bus {
  private constructor(
    private readonly client: ClientProxy,
    private readonly logger: Logger,
  ) {}

  /** Connects now, so a service that cannot reach NATS fails at boot instead of reporting ready. */
  static async connect(servers: readonly string[], name: string, logger: Logger): Promise<NestBus> {
    const client = ClientProxyFactory.create({
      transport: Transport.NATS,
      options: { servers: [...servers], name, ...NATS_RECONNECT_FOREVER },
    });
    try {
      await client.connect();
    } catch (error) {
      throw new Error(
        `NATS is unreachable at ${servers.map(withoutCredentials).join(', ')}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    return new NestBus(client, logger);
  }

  publish<K extends NotificationKind>(subject: Subject<K>, message: Notifications[K]): void {
    this.client.emit(subject, message).subscribe({
      error: (error: unknown) => this.logger.warn({ err: error, subject }, 'NATS publish failed; the sweep offers the work again'),
    });
  }

  subscribe<K extends NotificationKind>(subject: Subject<K>): Unsubscribe {
    throw new Error(`NestBus does not subscribe (${subject}): notifications reach @OnNotification handlers`);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** `nats://user:pass@host:4222` -> `nats://host:4222`, for messages. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}
