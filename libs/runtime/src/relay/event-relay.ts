import { ErrorCode, headers, JSONCodec, NatsError, type JetStreamClient, type JetStreamManager, type MsgHdrs } from 'nats';
import { isIntact, type LedgerEvent } from '@noetl/event-kernel';
import type { Database, LeadershipRepository, LedgerCursorRepository, TailEvent, TenantScope } from '@noetl/storage';
import type { Logger } from 'pino';
import { ensureEventStream, PAYLOAD_ELIDED_HEADER, type EventStreamLimits } from '../event-stream/event-stream';
import { eventSubject, shardOf, shardSubject } from '../event-stream/event-subjects';
import { LedgerFollower } from '../event-stream/ledger-follower';
import type { RelayMetrics } from './relay-metrics';
import { streamHolds } from './stream-holds';

export interface EventRelayOptions {
  db: Database;
  cursors: LedgerCursorRepository;
  leadership: LeadershipRepository;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** The tenant whose events it relays; absent: every tenant, as a deployment runs it. */
  scope?: TenantScope;
  /** Projector shards: the subject of each event names the one that owns its execution. */
  shardCount: number;
  batch: number;
  pollMs: number;
  limits: EventStreamLimits;
  logger: Logger;
  metrics: RelayMetrics;
}

const codec = JSONCodec();

/** The relay's name: its cursor and its lease. */
export function relayName(scope?: TenantScope): string {
  return scope ? `relay:${scope.tenantId}:${scope.organizationId}` : 'relay:*';
}

/**
 * The event relay (issue 10 item 1, issue 23 item 1): the one active relay
 * of its tenants (a deployment runs one for all of them, each event on its
 * tenant's subject) follows the ledger's tail (LedgerFollower) and publishes
 * committed events in commit order, in batches, to JetStream, each with its
 * event id as the message id, so a relay that dies between publish and its
 * cursor's move republishes without putting a duplicate in the stream
 * (within its duplicate window; the projector refuses stale versions after
 * it). A duplicate ack is believed only once the stream shows the message
 * (`publishHeld`). Its cursor moves once JetStream acked the batch.
 */
export class EventRelay {
  private readonly follower: LedgerFollower;
  private streamReady = false;

  constructor(private readonly options: EventRelayOptions) {
    const { metrics } = options;
    this.follower = new LedgerFollower({
      db: options.db,
      cursors: options.cursors,
      leadership: options.leadership,
      name: relayName(options.scope),
      ...(options.scope ? { scope: options.scope } : {}),
      batch: options.batch,
      pollMs: options.pollMs,
      logger: options.logger,
      beforeLeading: () => this.ensureStream(),
      deliver: (events) => this.publishBatch(events),
      leading: (leads) => metrics.leader.set(leads ? 1 : 0),
      failed: () => {
        metrics.errors.inc();
        this.streamReady = false;
      },
    });
  }

  /** This relay, in the leadership row. */
  get holder(): string {
    return this.follower.holder;
  }

  start(): void {
    this.follower.start();
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }

  private async ensureStream(): Promise<void> {
    if (this.streamReady) return;
    await ensureEventStream(this.options.jsm, this.options.limits);
    this.streamReady = true;
  }

  /**
   * Publishes what the ledger holds as it was written: an event whose content
   * no longer matches its checksum (changed behind the runtime, issue 25) is
   * not published, and says so at error level and in a metric. The cursor
   * moves past it: holding every later event back would let one changed row
   * stop the relay of every tenant.
   */
  private async publishBatch(events: readonly TailEvent[]): Promise<void> {
    const intact = events.filter(({ event }) => {
      if (isIntact(event)) return true;
      this.options.metrics.corrupt.inc();
      this.options.logger.error(
        { event_id: event.event_id, event_type: event.event_type, execution_id: event.execution_id },
        'an event no longer matches its checksum (changed behind the runtime): not published; `noetl verify` names it',
      );
      return false;
    });
    await Promise.all(intact.map(({ event }) => this.publish(event)));
    this.options.metrics.published.inc(intact.length);
  }

  /**
   * Publishes one event; one too large for a NATS message goes without its
   * payload, marked, and its readers take it from the ledger. (Retrying it
   * whole would fail forever and hold back every event behind it.)
   */
  private async publish(event: LedgerEvent): Promise<void> {
    const subject = shardSubject(
      eventSubject(event.tenant_id, event.organization_id, event.execution_id),
      shardOf(event.execution_id, this.options.shardCount),
    );
    try {
      await this.publishHeld(subject, codec.encode(event), event.event_id);
    } catch (error) {
      if (!(error instanceof NatsError) || error.code !== ErrorCode.MaxPayloadExceeded) throw error;
      const marked = headers();
      marked.set(PAYLOAD_ELIDED_HEADER, '1');
      await this.publishHeld(subject, codec.encode({ ...event, payload: null }), event.event_id, marked);
      this.options.metrics.elided.inc();
      this.options.logger.warn(
        { event_id: event.event_id, event_type: event.event_type },
        'an event too large for a NATS message was published without its payload',
      );
    }
  }

  /**
   * Publishes until the stream holds the message. A duplicate ack is
   * checked (`streamHolds`); one naming a message the stream does not hold
   * (its proposal lost in a leader change) has the message published again
   * under an id made of that ack's sequence, so a repeat of this
   * republish is deduplicated as the first publish was. A consumer folds
   * the event once either way (the projector by its version).
   */
  private async publishHeld(subject: string, data: Uint8Array, eventId: string, marked?: MsgHdrs): Promise<void> {
    const { js, jsm, metrics, logger } = this.options;
    for (let msgID = eventId; ;) {
      const ack = await js.publish(subject, data, { msgID, ...(marked ? { headers: marked } : {}) });
      if (!ack.duplicate || (await streamHolds(jsm, ack.stream, ack.seq, msgID))) return;
      metrics.falseDuplicates.inc();
      logger.warn(
        { event_id: eventId, msg_id: msgID, seq: ack.seq },
        'JetStream acked an event as a duplicate of a message it does not hold (lost in a leader change): publishing it again',
      );
      msgID = `${eventId}.r${ack.seq}`;
    }
  }
}
