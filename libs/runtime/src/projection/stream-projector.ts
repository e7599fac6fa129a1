import type { Queryable, TenantScope } from '@noetl/storage';
import type { LedgerEvent } from '@noetl/event-kernel';
import { AckPolicy, DeliverPolicy, nanos, NatsError, type Consumer, type JsMsg, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { EVENTS_STREAM, PAYLOAD_ELIDED_HEADER } from '../event-stream/event-stream';
import { durableToken, shardFilter } from '../event-stream/event-subjects';
import type { ProjectorMetrics } from './projector-metrics';

const BATCH = 500;
const RETRY_MS = 2_000;
/**
 * How long JetStream waits for a delivered message's ack before it delivers
 * it again. A delivery lost in transit (its NATS node or the consumer's
 * leader killed as it was sent) stays pending that long: if it was an
 * execution's last event, its projection lags that long (issue 29,
 * nats-node-loss: 60 s). A batch being folded says it is still at work every
 * half of it, so a slow fold is not delivered twice.
 */
const ACK_WAIT_MS = 10_000;

/**
 * Folds a batch of delivered events into their projections (the tenants'
 * projectors); resolves when they are written. `elided`: the ids of events
 * delivered without their payload (too large for a NATS message), which
 * must be read from the ledger. `q`: the connection to fold through (a
 * feed's own), else the pool.
 */
export type ProjectEvents = (events: readonly LedgerEvent[], elided?: ReadonlySet<string>, q?: Queryable) => Promise<unknown>;

/** Writes the projection rows the projectors deferred (see Projector.flush): those whose time has come, or `all` of them; through `q` as ProjectEvents. */
export type FlushProjections = (options?: { all?: boolean }, q?: Queryable) => Promise<void>;

export interface StreamProjectorOptions {
  nats: NatsConnection;
  project: ProjectEvents;
  flush: FlushProjections;
  /** The tenants whose events it consumes (looked up again every few seconds: a new tenant gets its consumer then). */
  scopes: () => Promise<readonly TenantScope[]>;
  metrics: ProjectorMetrics;
  logger: Logger;
  shardIndex: number;
  shardCount: number;
  /** Copies of each durable consumer's state on a JetStream cluster (`NOETL_JETSTREAM_REPLICAS`, as the stream's). */
  replicas?: number;
}

/** The durable consumer of a projector shard: one per tenant's organization and shard of a shard count. */
export function projectorDurable(scope: TenantScope, shardIndex: number, shardCount: number): string {
  return `projector-${durableToken(scope.tenantId)}-${durableToken(scope.organizationId)}-${shardIndex}-of-${shardCount}`;
}

/** How often the shard looks for tenants it has no consumer for yet. */
const SCOPES_EVERY_MS = 2_000;

/**
 * One projector shard over JetStream (issue 10): per tenant and organization
 * a durable pull consumer on `noetl.events.<tenant>.<org>.*.<shard>`, so
 * each shard folds only its executions, and only its deployment's tenants'
 * (the stream may hold other deployments' events, on a shared NATS), and a
 * restarted shard resumes where its acks stopped. A batch is acked after its
 * executions are projected; a failure leaves it unacked, and JetStream
 * delivers it again. The stream is the relay's: the shard waits until it exists.
 */
export class StreamProjector {
  private stopped = false;
  private running?: Promise<void>;
  private readonly consuming = new Map<string, Promise<void>>();
  /** Events waiting, per tenant consumer: the shard's lag is their sum. */
  private readonly pending = new Map<string, number>();
  private readonly shard: string;
  private wake?: () => void;

  constructor(private readonly options: StreamProjectorOptions) {
    this.shard = String(options.shardIndex);
  }

  durableOf(scope: TenantScope): string {
    return projectorDurable(scope, this.options.shardIndex, this.options.shardCount);
  }

  start(): void {
    this.running = this.watchScopes();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
    await Promise.all(this.consuming.values());
    await this.options.flush({ all: true });
  }

  /**
   * Messages of the shard's consumers not folded yet (delivered and unacked
   * too), read from JetStream now; a tenant whose consumer is not created
   * yet counts as 1 (it has not begun).
   */
  async lag(): Promise<number> {
    const scopes = await this.options.scopes();
    const js = this.options.nats.jetstream();
    let lag = 0;
    for (const scope of scopes) {
      const durable = this.durableOf(scope);
      const info = this.consuming.has(durable)
        ? await (await js.consumers.get(EVENTS_STREAM, durable)).info(true).catch(() => undefined)
        : undefined;
      lag += info ? info.num_pending + info.num_ack_pending : 1;
    }
    return lag;
  }

  /** Starts a consumer for each tenant that has none, now and every few seconds. */
  private async watchScopes(): Promise<void> {
    while (!this.stopped) {
      try {
        for (const scope of await this.options.scopes()) {
          const durable = this.durableOf(scope);
          if (!this.consuming.has(durable)) this.consuming.set(durable, this.consume(scope, durable));
        }
      } catch (error) {
        this.options.logger.error({ err: error, shard: this.shard }, 'listing the tenants to project failed; retrying');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SCOPES_EVERY_MS);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  private async consume(scope: TenantScope, durable: string): Promise<void> {
    let consumer = await this.consumer(scope, durable);
    while (!this.stopped && consumer) {
      try {
        await this.fold(consumer, durable);
      } catch (error) {
        this.options.metrics.errors.inc({ shard: this.shard });
        if (gone(error)) {
          // Deleted, or lost with the JetStream state that held it: fetching it again would fail forever. Made again, it delivers
          // the stream from its start (DeliverPolicy.All); the projector discards what it has folded already.
          this.options.logger.warn(
            { err: error, shard: this.shard, tenant: scope.tenantId, durable },
            'the consumer is gone; making it again',
          );
          await sleep(RETRY_MS);
          consumer = await this.consumer(scope, durable);
          continue;
        }
        this.options.logger.error(
          { err: error, shard: this.shard, tenant: scope.tenantId },
          'folding a batch failed; JetStream delivers it again',
        );
        await sleep(RETRY_MS);
      }
    }
  }

  private async fold(consumer: Consumer, durable: string): Promise<void> {
    const messages: JsMsg[] = [];
    for await (const message of await consumer.fetch({ max_messages: BATCH, expires: 1_000 })) messages.push(message);
    if (messages.length > 0) {
      const working = setInterval(() => messages.forEach((message) => message.working()), ACK_WAIT_MS / 2);
      try {
        const events = messages.map((message) => message.json<LedgerEvent>());
        const elided = new Set(events.filter((_, i) => messages[i]!.headers?.has(PAYLOAD_ELIDED_HEADER)).map((event) => event.event_id));
        await this.options.project(events, elided);
      } catch (error) {
        for (const message of messages) message.nak(RETRY_MS);
        throw error;
      } finally {
        clearInterval(working);
      }
      for (const message of messages) message.ack();
    }
    await this.options.flush();
    const info = await consumer.info(true);
    this.pending.set(durable, info.num_pending + info.num_ack_pending);
    this.options.metrics.lagEvents.set(
      { shard: this.shard },
      [...this.pending.values()].reduce((sum, n) => sum + n, 0),
    );
  }

  /** The tenant's durable consumer of this shard, once the relay has created the stream; undefined if stopped first. */
  private async consumer(scope: TenantScope, durable: string): Promise<Consumer | undefined> {
    const stream = EVENTS_STREAM;
    while (!this.stopped) {
      try {
        // Inside the retry: the manager asks JetStream for its account, which fails while NATS is away.
        const jsm = await this.options.nats.jetstreamManager();
        const replicas = this.options.replicas ?? 1;
        const existing = await jsm.consumers.info(stream, durable).catch(() => undefined);
        // An existing consumer keeps its acks; its replica count (a cluster moves it in place) and ack wait follow this version's.
        if (existing && (existing.config.num_replicas !== replicas || existing.config.ack_wait !== nanos(ACK_WAIT_MS))) {
          await jsm.consumers.update(stream, durable, { num_replicas: replicas, ack_wait: nanos(ACK_WAIT_MS) });
        } else if (!existing) {
          await jsm.consumers.add(stream, {
            durable_name: durable,
            filter_subject: shardFilter(this.options.shardIndex, scope),
            ack_policy: AckPolicy.Explicit,
            deliver_policy: DeliverPolicy.All,
            ack_wait: nanos(ACK_WAIT_MS),
            max_ack_pending: 10 * BATCH,
            num_replicas: replicas,
          });
        }
        return await this.options.nats.jetstream().consumers.get(stream, durable);
      } catch (error) {
        this.options.logger.warn({ err: error, stream }, 'waiting for the events stream (the relay creates it)');
        await sleep(RETRY_MS);
      }
    }
    return undefined;
  }
}

/** JetStream's answer for a consumer (or stream) that does not exist: 404. */
function gone(error: unknown): boolean {
  return error instanceof NatsError && error.code === '404';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
