import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ErrorCode, headers, JSONCodec, NatsError, type JetStreamClient, type JetStreamManager } from 'nats';
import {
  shardOf,
  shardSubject,
  type Database,
  type DedicatedConnection,
  type LeadershipRepository,
  type OutboxMessage,
  type OutboxRepository,
  type TenantScope,
} from '@noetl/storage';
import type { Logger } from 'pino';
import { ensureEventStream, PAYLOAD_ELIDED_HEADER, type EventStreamLimits } from '../event-stream/event-stream';
import type { RelayMetrics } from './relay-metrics';

export interface OutboxRelayOptions {
  db: Database;
  outbox: OutboxRepository;
  leadership: LeadershipRepository;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** The tenant whose rows it relays (the outbox repository's); absent: every tenant, as a deployment runs it. */
  scope?: TenantScope;
  /** Projector shards: the subject of each event names the one that owns its execution. */
  shardCount: number;
  batch: number;
  pollMs: number;
  retentionMs: number;
  limits: EventStreamLimits;
  logger: Logger;
  metrics: RelayMetrics;
}

/** How often a relay that does not lead tries to take over. */
const TAKEOVER_MS = 2_000;
/**
 * How long the relay's leadership lasts unrenewed: a leader that stops
 * answering (killed, SIGSTOPped, cut off) is replaced this long after its
 * last renewal. It renews at least three times per lease.
 */
const LEASE_MS = 10_000;
const BACKOFF_MS = 1_000;
/** Published rows deleted per statement. */
const PURGE_BATCH = 10_000;
const codec = JSONCodec();

/**
 * The outbox relay (issue 10 item 1): the one active relay of its tenants (a
 * deployment runs one for all of them, each event on its tenant's subject)
 * publishes committed outbox rows in ledger order, in batches, to JetStream,
 * each with its event id as the message id, so a relay that dies between
 * publish and mark republishes without putting a duplicate in the stream.
 * Rows are marked once JetStream acked them, and deleted after the retention.
 * Commits wake it (LISTEN noetl_outbox); the poll is the safety net.
 *
 * It leads by a lease in `noetl.leadership` (as the sweeper does), renewed
 * before every batch, not by a session lock: a session lock stays with a
 * stopped process for as long as it is stopped, and publishing with it. A
 * leader that resumes after its lease ran out may publish the batch it had
 * in hand once more; JetStream drops those as duplicates within its
 * duplicate window, and the projector refuses stale versions after it.
 */
export class OutboxRelay {
  private stopped = false;
  private running?: Promise<void>;
  private wake?: () => void;
  /** A wake-up that came while the relay was busy: its next sleep returns at once, so no commit is missed. */
  private woken = false;
  /** This relay, in the leadership row: its process and a random part (a restarted process is another holder). */
  readonly holder = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

  constructor(private readonly options: OutboxRelayOptions) {}

  start(): void {
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.notify();
    await this.running;
    await this.options.leadership.resign(this.options.db, this.role(), this.holder).catch(() => undefined);
  }

  private async run(): Promise<void> {
    const { logger, metrics } = this.options;
    while (!this.stopped) {
      let connection: DedicatedConnection | undefined;
      try {
        await ensureEventStream(this.options.jsm, this.options.limits);
        if (!(await this.lead())) {
          await this.sleep(TAKEOVER_MS);
          continue;
        }
        connection = await this.options.db.dedicated();
        metrics.leader.set(1);
        logger.info({ tenant: this.options.scope?.tenantId ?? '*' }, 'this process relays the outbox to JetStream');
        await connection.listen('noetl_outbox', () => this.notify());
        await this.relay(connection);
      } catch (error) {
        metrics.errors.inc();
        logger.error({ err: error }, 'relaying the outbox failed; retrying');
        await this.sleep(BACKOFF_MS);
      } finally {
        metrics.leader.set(0);
        await connection?.release().catch(() => undefined);
      }
    }
  }

  /**
   * Publishes batch after batch, renewing its lease before each; once the
   * outbox is drained, purges and waits for a commit, the poll or the next
   * renewal. Until stopped, the listening connection is lost, or another
   * relay leads.
   */
  private async relay(connection: DedicatedConnection): Promise<void> {
    let lost: Error | undefined;
    void connection.lost.then((error) => {
      lost = error;
      this.notify();
    });
    while (!this.stopped && !lost) {
      if (!(await this.lead())) {
        this.options.logger.warn('the relay lease ran out and another relay leads now; this one follows');
        return;
      }
      if ((await this.publishBatch()) === this.options.batch) continue;
      await this.options.outbox.purgePublished(this.options.retentionMs, PURGE_BATCH);
      await this.sleep(Math.min(this.options.pollMs, LEASE_MS / 3));
    }
    if (lost) throw lost;
  }

  /** Publishes the oldest unpublished rows and marks the ones JetStream acked; returns how many it published. */
  async publishBatch(): Promise<number> {
    const { outbox, js, metrics } = this.options;
    const messages = await outbox.claimUnpublished(this.options.batch);
    if (messages.length === 0) return 0;
    await Promise.all(messages.map((message) => this.publish(js, message)));
    await outbox.markPublished(messages.map((message) => message.outboxId));
    metrics.published.inc(messages.length);
    return messages.length;
  }

  /**
   * Publishes one event; one too large for a NATS message goes without its
   * payload, marked, and its readers take it from the ledger. (Retrying it
   * whole would fail forever and hold back every event behind it.)
   */
  private async publish(js: JetStreamClient, message: OutboxMessage): Promise<void> {
    const subject = this.subjectOf(message);
    try {
      await js.publish(subject, codec.encode(message.envelope), { msgID: message.eventId });
    } catch (error) {
      if (!(error instanceof NatsError) || error.code !== ErrorCode.MaxPayloadExceeded) throw error;
      const marked = headers();
      marked.set(PAYLOAD_ELIDED_HEADER, '1');
      await js.publish(subject, codec.encode({ ...message.envelope, payload: null }), { msgID: message.eventId, headers: marked });
      this.options.metrics.elided.inc();
      this.options.logger.warn({ event_id: message.eventId, event_type: message.eventType }, 'an event too large for a NATS message was published without its payload');
    }
  }

  private subjectOf(message: OutboxMessage): string {
    return shardSubject(message.subject, shardOf(message.executionId, this.options.shardCount));
  }

  private lead(): Promise<boolean> {
    return this.options.leadership.lead(this.options.db, this.role(), this.holder, LEASE_MS);
  }

  private role(): string {
    return this.options.scope ? `relay:${this.options.scope.tenantId}:${this.options.scope.organizationId}` : 'relay:*';
  }

  private notify(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Waits `ms`, or less when woken (a commit, stop, a lost connection), also by a wake-up that came before it. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (this.woken) done();
      else this.wake = done;
    });
  }
}
