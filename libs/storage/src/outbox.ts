import { createHash } from 'node:crypto';
import type { LedgerEvent } from '@noetl/event-kernel';
import type { Database, Queryable } from './database';
import type { TenantScope } from './storage-error';

/**
 * The event stream's subjects (issue 10): an outbox row keeps
 * `noetl.events.<tenant>.<org>.<execution>`, and the relay publishes it on
 * that subject plus `.<shard>`, the projector shard that owns the execution,
 * so each shard's consumer filters on `noetl.events.<tenant>.<org>.*.<shard>`.
 */
export const EVENTS_SUBJECT_PREFIX = 'noetl.events';

/** A subject token may not contain separators or wildcards. */
function subjectToken(value: string): string {
  return value.replace(/[.*>\s]/g, '_') || '_';
}

export function eventSubject(tenantId: string, organizationId: string, executionId: string): string {
  return `${EVENTS_SUBJECT_PREFIX}.${subjectToken(tenantId)}.${subjectToken(organizationId)}.${subjectToken(executionId)}`;
}

/**
 * The projector shard that owns an execution: the first 32 bits of the
 * sha256 of its id, modulo the shard count. A contract between the relay and
 * every projector: changing it moves executions between shards.
 */
export function shardOf(executionId: string, shardCount: number): number {
  return createHash('sha256').update(executionId).digest().readUInt32BE(0) % shardCount;
}

/** The subject an event is published on: its row's subject and its execution's shard. */
export function shardSubject(subject: string, shard: number): string {
  return `${subject}.${shard}`;
}

/** What one projector shard consumes of one tenant's organization. */
export function shardFilter(shard: number, scope: TenantScope): string {
  return `${EVENTS_SUBJECT_PREFIX}.${subjectToken(scope.tenantId)}.${subjectToken(scope.organizationId)}.*.${shard}`;
}

/** A name JetStream accepts for a durable consumer (no separators, wildcards or spaces). */
export function durableToken(value: string): string {
  return subjectToken(value).replace(/[^\w-]/g, '_');
}

/** One row of `noetl.outbox`: a sealed event waiting to be published. */
export interface OutboxMessage {
  outboxId: string;
  eventId: string;
  tenantId: string;
  organizationId: string;
  executionId: string;
  subject: string;
  eventType: string;
  envelope: LedgerEvent;
  attempts: number;
  createdAt: string;
}

interface OutboxRow {
  outbox_id: string;
  event_id: string;
  tenant_id: string;
  organization_id: string;
  execution_id: string;
  subject: string;
  event_type: string;
  payload: LedgerEvent;
  attempts: number;
  created_at: Date;
}

/** Writes outbox rows for new events; part of the event store's append transaction. */
export async function insertOutboxRows(q: Queryable, events: readonly LedgerEvent[]): Promise<void> {
  if (events.length === 0) return;
  await q.query(
    `INSERT INTO noetl.outbox (event_id, tenant_id, organization_id, execution_id, subject, event_type, payload)
     SELECT event_id, tenant_id, organization_id, execution_id, subject, event_type, payload::jsonb
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[])
         AS o(event_id, tenant_id, organization_id, execution_id, subject, event_type, payload)`,
    [
      events.map((e) => e.event_id),
      events.map((e) => e.tenant_id),
      events.map((e) => e.organization_id),
      events.map((e) => e.execution_id),
      events.map((e) => eventSubject(e.tenant_id, e.organization_id, e.execution_id)),
      events.map((e) => e.event_type),
      events.map((e) => JSON.stringify(e)),
    ],
  );
}

/**
 * The publisher's side of the outbox. Claims are row locks, so they hold only
 * inside a transaction: call `claimUnpublished` and `markPublished` with the
 * same transaction's Queryable, or let `publishPending` do both.
 */
export class OutboxRepository {
  /** The rows of one tenant and organization, or (no scope) of every tenant: what a deployment's relay publishes. */
  constructor(
    private readonly db: Database,
    private readonly scope?: TenantScope,
  ) {}

  /**
   * Oldest unpublished rows not locked by another publisher (FOR UPDATE SKIP
   * LOCKED), in `q`'s transaction or one of its own. Read with a plain index
   * scan: it marks the index entries of rows published since as dead, so the
   * next read skips them, where a bitmap scan would visit every one again
   * until a vacuum (and the tests' PostgreSQL runs none).
   */
  async claimUnpublished(limit: number, q?: Queryable): Promise<OutboxMessage[]> {
    if (!q) return this.db.transaction((tq) => this.claimUnpublished(limit, tq));
    await q.query('SET LOCAL enable_bitmapscan = off');
    const rows = await q.query<OutboxRow>(
      `SELECT outbox_id, event_id, tenant_id, organization_id, execution_id, subject, event_type, payload, attempts, created_at
         FROM noetl.outbox
        WHERE published_at IS NULL AND ($2::text IS NULL OR (tenant_id = $2 AND organization_id = $3))
        ORDER BY outbox_id
        LIMIT $1
          FOR UPDATE SKIP LOCKED`,
      [limit, ...this.scopeParams()],
    );
    return rows.map(toMessage);
  }

  async markPublished(outboxIds: readonly string[], q: Queryable = this.db): Promise<number> {
    if (outboxIds.length === 0) return 0;
    const rows = await q.query(
      `UPDATE noetl.outbox SET published_at = now(), attempts = attempts + 1
        WHERE outbox_id = ANY($1::bigint[]) AND published_at IS NULL
        RETURNING outbox_id`,
      [[...outboxIds]],
    );
    return rows.length;
  }

  /** Deletes up to `limit` rows published more than `retentionMs` ago (never an unpublished one); returns how many. */
  async purgePublished(retentionMs: number, limit: number, q: Queryable = this.db): Promise<number> {
    const rows = await q.query(
      `DELETE FROM noetl.outbox WHERE outbox_id IN (
         SELECT outbox_id FROM noetl.outbox
          WHERE published_at IS NOT NULL AND published_at < now() - make_interval(secs => $1::double precision / 1000)
            AND ($3::text IS NULL OR (tenant_id = $3 AND organization_id = $4))
          ORDER BY published_at LIMIT $2)
       RETURNING 1`,
      [retentionMs, limit, ...this.scopeParams()],
    );
    return rows.length;
  }

  /** Rows not yet published, and the age in seconds of the oldest (0 when none). */
  async backlog(q: Queryable = this.db): Promise<{ rows: number; oldestAgeSeconds: number }> {
    const [row] = await q.query<{ rows: string; age: number | null }>(
      `SELECT count(*) AS rows, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS age FROM noetl.outbox
        WHERE published_at IS NULL AND ($1::text IS NULL OR (tenant_id = $1 AND organization_id = $2))`,
      this.scopeParams(),
    );
    return { rows: Number(row?.rows ?? 0), oldestAgeSeconds: Math.max(0, row?.age ?? 0) };
  }

  private scopeParams(): [string | null, string | null] {
    return [this.scope?.tenantId ?? null, this.scope?.organizationId ?? null];
  }

  async recordFailedAttempt(outboxIds: readonly string[], q: Queryable = this.db): Promise<void> {
    if (outboxIds.length === 0) return;
    await q.query('UPDATE noetl.outbox SET attempts = attempts + 1 WHERE outbox_id = ANY($1::bigint[])', [[...outboxIds]]);
  }

  /**
   * Claims up to `limit` rows, hands them to `publish`, and marks them
   * published in the same transaction. When `publish` throws, nothing is
   * marked, the attempt is counted, and the error propagates.
   */
  async publishPending(limit: number, publish: (messages: OutboxMessage[]) => Promise<void>): Promise<number> {
    let claimed: OutboxMessage[] = [];
    try {
      return await this.db.transaction(async (q) => {
        claimed = await this.claimUnpublished(limit, q);
        if (claimed.length === 0) return 0;
        await publish(claimed);
        return this.markPublished(
          claimed.map((m) => m.outboxId),
          q,
        );
      });
    } catch (error) {
      await this.recordFailedAttempt(claimed.map((m) => m.outboxId)).catch(() => undefined);
      throw error;
    }
  }
}

function toMessage(row: OutboxRow): OutboxMessage {
  return {
    outboxId: row.outbox_id,
    eventId: row.event_id,
    tenantId: row.tenant_id,
    organizationId: row.organization_id,
    executionId: row.execution_id,
    subject: row.subject,
    eventType: row.event_type,
    envelope: row.payload,
    attempts: row.attempts,
    createdAt: row.created_at.toISOString(),
  };
}
