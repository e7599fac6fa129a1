import { durableToken, shardFilter, type TenantScope } from '@noetl/storage';
import type { LedgerEvent } from '@noetl/event-kernel';
import { AckPolicy, DeliverPolicy, nanos, type Consumer, type JsMsg, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { EVENTS_STREAM } from '../event-stream/event-stream';
import type { Projector } from './projector';
import type { ProjectorMetrics } from './projector-metrics';

const BATCH = 500;
const RETRY_MS = 2_000;

export interface StreamProjectorOptions {
  nats: NatsConnection;
  projector: Projector;
  metrics: ProjectorMetrics;
  logger: Logger;
  scope: TenantScope;
  shardIndex: number;
  shardCount: number;
}

/**
 * One projector shard over JetStream (issue 10): a durable pull consumer on
 * `noetl.events.<tenant>.<org>.*.<shard>`, so each shard folds only its executions and
 * a restarted shard resumes where its acks stopped. A batch is acked after
 * its executions are projected; a failure leaves it unacked, and JetStream
 * delivers it again. The stream is the relay's: the shard waits until it exists.
 */
export class StreamProjector {
  private stopped = false;
  private running?: Promise<void>;
  private readonly shard: string;

  constructor(private readonly options: StreamProjectorOptions) {
    this.shard = String(options.shardIndex);
  }

  /** The durable consumer's name: one per tenant's organization and shard of a shard count. */
  get durable(): string {
    const { scope, shardIndex, shardCount } = this.options;
    return `projector-${durableToken(scope.tenantId)}-${durableToken(scope.organizationId)}-${shardIndex}-of-${shardCount}`;
  }

  start(): void {
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await this.options.projector.flush({ all: true });
  }

  private async run(): Promise<void> {
    const consumer = await this.consumer();
    if (!consumer) return;
    while (!this.stopped) {
      try {
        await this.fold(consumer);
      } catch (error) {
        this.options.metrics.errors.inc({ shard: this.shard });
        this.options.logger.error({ err: error, shard: this.shard }, 'folding a batch failed; JetStream delivers it again');
        await sleep(RETRY_MS);
      }
    }
  }

  private async fold(consumer: Consumer): Promise<void> {
    const messages: JsMsg[] = [];
    for await (const message of await consumer.fetch({ max_messages: BATCH, expires: 1_000 })) messages.push(message);
    if (messages.length > 0) {
      try {
        await this.options.projector.deliver(messages.map((message) => message.json<LedgerEvent>()));
      } catch (error) {
        for (const message of messages) message.nak(RETRY_MS);
        throw error;
      }
      for (const message of messages) message.ack();
    }
    await this.options.projector.flush();
    const info = await consumer.info(true);
    this.options.metrics.lagEvents.set({ shard: this.shard }, info.num_pending + info.num_ack_pending);
  }

  /** The shard's durable consumer, once the relay has created the stream; undefined if stopped first. */
  private async consumer(): Promise<Consumer | undefined> {
    const stream = EVENTS_STREAM;
    const jsm = await this.options.nats.jetstreamManager();
    while (!this.stopped) {
      try {
        await jsm.consumers.add(stream, {
          durable_name: this.durable,
          filter_subject: shardFilter(this.options.scope.tenantId, this.options.scope.organizationId, this.options.shardIndex),
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          ack_wait: nanos(60_000),
          max_ack_pending: 10 * BATCH,
        });
        return await this.options.nats.jetstream().consumers.get(stream, this.durable);
      } catch (error) {
        this.options.logger.warn({ err: error, stream }, 'waiting for the events stream (the relay creates it)');
        await sleep(RETRY_MS);
      }
    }
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
