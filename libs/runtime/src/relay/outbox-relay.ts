import { JSONCodec, type JetStreamClient, type JetStreamManager } from 'nats';
import { shardOf, shardSubject, type Database, type DedicatedConnection, type OutboxMessage, type OutboxRepository, type TenantScope } from '@noetl/storage';
import type { Logger } from 'pino';
import { ensureEventStream, type EventStreamLimits } from '../event-stream/event-stream';
import type { RelayMetrics } from './relay-metrics';

export interface OutboxRelayOptions {
  db: Database;
  outbox: OutboxRepository;
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
const BACKOFF_MS = 1_000;
/** Published rows deleted per statement. */
const PURGE_BATCH = 10_000;
const codec = JSONCodec();

/**
 * The outbox relay (issue 10 item 1): the one active relay of its tenants (a
 * deployment runs one for all of them, each event on its tenant's subject:
 * one connection and one lock, however many tenants; a session advisory
 * lock on a connection of its own: when its process dies,
 * the connection and the lock go, and another relay takes over) publishes
 * committed outbox rows in ledger order, in batches, to JetStream, each with
 * its event id as the message id, so a relay that dies between publish and
 * mark republishes without putting a duplicate in the stream. Rows are
 * marked once JetStream acked them, and deleted after the retention.
 * Commits wake it (LISTEN noetl_outbox); the poll is the safety net.
 */
export class OutboxRelay {
  private stopped = false;
  private running?: Promise<void>;
  private wake?: () => void;
  /** A wake-up that came while the relay was busy: its next sleep returns at once, so no commit is missed. */
  private woken = false;

  constructor(private readonly options: OutboxRelayOptions) {}

  start(): void {
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.notify();
    await this.running;
  }

  private async run(): Promise<void> {
    const { logger, metrics } = this.options;
    while (!this.stopped) {
      let connection: DedicatedConnection | undefined;
      try {
        await ensureEventStream(this.options.jsm, this.options.limits);
        connection = await this.options.db.dedicated();
        if (!(await this.lead(connection))) {
          await this.sleep(TAKEOVER_MS);
          continue;
        }
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

  /** Drains, purges, then waits for a commit or the poll; until stopped or the connection is lost. */
  private async relay(connection: DedicatedConnection): Promise<void> {
    let lost: Error | undefined;
    void connection.lost.then((error) => {
      lost = error;
      this.notify();
    });
    while (!this.stopped && !lost) {
      while (!this.stopped && (await this.publishBatch()) === this.options.batch);
      await this.options.outbox.purgePublished(this.options.retentionMs, PURGE_BATCH);
      await this.sleep(this.options.pollMs);
    }
    if (lost) throw lost;
  }

  /** Publishes the oldest unpublished rows and marks the ones JetStream acked; returns how many it published. */
  async publishBatch(): Promise<number> {
    const { outbox, js, metrics } = this.options;
    const messages = await outbox.claimUnpublished(this.options.batch);
    if (messages.length === 0) return 0;
    await Promise.all(messages.map((message) => js.publish(this.subjectOf(message), codec.encode(message.envelope), { msgID: message.eventId })));
    await outbox.markPublished(messages.map((message) => message.outboxId));
    metrics.published.inc(messages.length);
    return messages.length;
  }

  private subjectOf(message: OutboxMessage): string {
    return shardSubject(message.subject, shardOf(message.executionId, this.options.shardCount));
  }

  private async lead(connection: DedicatedConnection): Promise<boolean> {
    const [row] = await connection.query<{ leader: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 4)) AS leader', [
      this.options.scope ? `relay:${this.options.scope.tenantId}:${this.options.scope.organizationId}` : 'relay:*',
    ]);
    return row?.leader === true;
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
