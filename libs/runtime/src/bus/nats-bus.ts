import { connect, JSONCodec, type Msg, type NatsConnection } from 'nats';
import type { JsonObject } from '@noetl/event-kernel';
import type { Bus, SubscribeOptions, Unsubscribe } from './bus';

/** Where a NatsBus failure happened, for the log line. */
export interface NatsBusErrorContext {
  operation: 'publish' | 'deliver' | 'connection';
  subject?: string;
}

export interface NatsBusOptions {
  /** Client name shown by the NATS server's monitoring (e.g. `noetl-worker`). */
  name?: string;
  /** Called for failures the bus swallows (a lost notification is only a delay): log them here. */
  onError?: (error: unknown, context: NatsBusErrorContext) => void;
  /** How long `close()` lets pending messages flush before it closes anyway (default 5 s). */
  drainTimeoutMs?: number;
}

const DEFAULT_DRAIN_TIMEOUT_MS = 5_000;
const codec = JSONCodec<unknown>();

/**
 * The bus of separate services: core NATS pub/sub. Core NATS (not JetStream)
 * is enough here because messages are hints (DESIGN.md invariant 5): a
 * message lost while a role is down is made good by the scheduler's sweeps.
 * A queue group gets each message once, like InProcessBus's groups.
 */
export class NatsBus implements Bus {
  private closing?: Promise<void>;

  private constructor(
    private readonly connection: NatsConnection,
    private readonly options: NatsBusOptions,
  ) {
    // Reconnects are retried forever, so this only fires for a fatal error (e.g.
    // authorization): say so once, when it happens, not only at the next publish.
    void connection.closed().then((error) => {
      if (error) this.report(error, { operation: 'connection' });
    });
  }

  /** Connects to `url`, retrying reconnects forever once connected; fails at once when the server is unreachable. */
  static async connect(url: string, options: NatsBusOptions = {}): Promise<NatsBus> {
    let connection: NatsConnection;
    try {
      connection = await connect({
        servers: url,
        ...(options.name !== undefined ? { name: options.name } : {}),
        maxReconnectAttempts: -1,
      });
    } catch (error) {
      throw new Error(`NATS is unreachable at ${withoutCredentials(url)}: ${(error as Error).message}`, { cause: error });
    }
    return new NatsBus(connection, options);
  }

  publish(subject: string, message: JsonObject): void {
    if (this.closing) return;
    try {
      this.connection.publish(subject, codec.encode(message));
    } catch (error) {
      // Closed or draining underneath us: the sweeps re-notify, so the publisher carries on.
      this.report(error, { operation: 'publish', subject });
    }
  }

  subscribe(subject: string, handler: (message: JsonObject) => void, options: SubscribeOptions = {}): Unsubscribe {
    // As InProcessBus: subscribing to a closed bus hears nothing, quietly.
    if (this.closing) return () => undefined;
    const subscription = this.connection.subscribe(subject, {
      ...(options.queue !== undefined ? { queue: options.queue } : {}),
      callback: (error, msg) => {
        if (error) this.report(error, { operation: 'deliver', subject });
        else this.deliver(subject, msg, handler);
      },
    });
    return () => {
      // Unsubscribing from a closed connection is a no-op in nats.js.
      subscription.unsubscribe();
    };
  }

  /**
   * Resolves once the server has processed everything this connection sent,
   * subscriptions included: a watcher that must not miss the next message
   * (e.g. `finished` for an execution it is about to start) awaits this.
   */
  async flush(): Promise<void> {
    await this.connection.flush();
  }

  /** Stops subscriptions, flushes what was published, then closes (at the latest after `drainTimeoutMs`). */
  close(): Promise<void> {
    this.closing ??= this.drainOrClose();
    return this.closing;
  }

  private async drainOrClose(): Promise<void> {
    if (this.connection.isClosed()) return;
    const drained = this.connection.drain().catch((error: unknown) => this.report(error, { operation: 'connection' }));
    // A drain waits for the server's answer, which never comes while the server is away.
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
    });
    await Promise.race([drained, timedOut]);
    clearTimeout(timer);
    if (!this.connection.isClosed()) await this.connection.close();
  }

  private deliver(subject: string, msg: Msg, handler: (message: JsonObject) => void): void {
    let message: unknown;
    try {
      message = codec.decode(msg.data);
    } catch (error) {
      this.report(new Error(`a message on ${subject} is not JSON`, { cause: error }), { operation: 'deliver', subject });
      return;
    }
    if (!isJsonObject(message)) {
      this.report(new Error(`a message on ${subject} is not a JSON object`), { operation: 'deliver', subject });
      return;
    }
    // A consumer's failure is its own: the subscription goes on.
    try {
      const outcome: unknown = handler(message);
      if (outcome instanceof Promise) outcome.catch((error: unknown) => this.report(error, { operation: 'deliver', subject }));
    } catch (error) {
      this.report(error, { operation: 'deliver', subject });
    }
  }

  private report(error: unknown, context: NatsBusErrorContext): void {
    try {
      this.options.onError?.(error, context);
    } catch {
      /* a failing logger must not break delivery */
    }
  }
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
