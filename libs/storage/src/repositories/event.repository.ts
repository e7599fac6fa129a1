import { EventType, type ChainedEvent, type LedgerEvent } from '@noetl/event-kernel';
import type { Queryable } from '../database';
import { EVENT_SELECT_LIST, toLedgerEvent, type EventRow } from '../event-row';
import { TERMINAL_EVENT_TYPES_SQL } from '../event-unique-keys';
import { prepared } from '../prepared-statements';
import type { TenantScope } from '../storage-error';

const READ_AFTER_SQL = prepared(`
  SELECT ${EVENT_SELECT_LIST} FROM noetl.event
   WHERE stream_id = $1 AND stream_version > $2 AND tenant_id = $3 AND organization_id = $4
   ORDER BY stream_version LIMIT $5`);
const READ_CHAIN_SQL = prepared(`
  SELECT ${EVENT_SELECT_LIST}, chain_hash FROM noetl.event
   WHERE stream_id = $1 AND stream_version > $2 AND tenant_id = $3 AND organization_id = $4
   ORDER BY stream_version LIMIT $5`);
const WAS_PURGED_SQL = prepared(`
  SELECT 1 FROM noetl.event WHERE execution_id = $1::bigint AND event_type = '${EventType.AdminAction}' AND payload->>'action' = 'purge' LIMIT 1`);
const HAS_ENDED_SQL = prepared(
  `SELECT 1 FROM noetl.event WHERE execution_id = $1::bigint AND event_type IN ${TERMINAL_EVENT_TYPES_SQL} LIMIT 1`,
);
/** Only the stream's tail past its execution's planned version is read. */
const UNPLANNED_PARTIALS_SQL = prepared(`
  SELECT x.planned_version,
         (SELECT count(*)::int FROM noetl.event ev
           WHERE ev.stream_id = $1 AND ev.tenant_id = $3 AND ev.organization_id = $4
             AND ev.stream_version > x.planned_version
             AND ev.event_type = '${EventType.CallPartial}' AND ev.command_id = $5::bigint) AS count
    FROM noetl.execution x WHERE x.execution_id = $2::bigint`);

/** A streamed command's chunks the scheduler has not planned, as of the execution's planned version. */
export interface UnplannedPartials {
  count: number;
  plannedVersion: number;
}

/** Where a page of a stream starts and which events it lists (`GET /api/executions/{id}/events`). */
export interface EventPageQuery {
  /** After this event (an event id of the stream), or after this position; neither: from the start. */
  afterEventId?: string;
  afterPosition?: number;
  types?: readonly string[];
  limit: number;
}

/** A point of a stream named by an event, a time or a position (a replay's cutoff); at most one is given. */
export interface StreamCutoff {
  eventId?: string;
  time?: string;
  position?: number;
}

/** What a cutoff resolves to: the last version at or before it, whether the stream exists, and whether a named event is the stream's. */
export interface ResolvedCutoff {
  version: number | null;
  streamExists: boolean;
  eventKnown: boolean;
}

/**
 * Every read of `noetl.event` (STYLE.md "One table, one repository"; its
 * appends are PgEventStore's): a stream by version, as stored (the caller
 * upcasts) or with its chain hashes, a page of it, a point of it, and what
 * an execution's events say of it (ended, purged, chunks unplanned).
 */
export class EventRepository {
  async readAfter(q: Queryable, scope: TenantScope, streamId: string, afterVersion: number, limit: number): Promise<LedgerEvent[]> {
    const rows = await q.query<EventRow>(READ_AFTER_SQL, [streamId, afterVersion, scope.tenantId, scope.organizationId, limit]);
    return rows.map(toLedgerEvent);
  }

  async readChainAfter(q: Queryable, scope: TenantScope, streamId: string, afterVersion: number, limit: number): Promise<ChainedEvent[]> {
    const rows = await q.query<EventRow & { chain_hash: Buffer | null }>(READ_CHAIN_SQL, [
      streamId,
      afterVersion,
      scope.tenantId,
      scope.organizationId,
      limit,
    ]);
    return rows.map(({ chain_hash: chainHash, ...row }) => ({ event: toLedgerEvent(row), chainHash }));
  }

  /** A page of a stream in version order, from after an event or a position, of some event types or all. */
  async page(q: Queryable, scope: TenantScope, streamId: string, query: EventPageQuery): Promise<LedgerEvent[]> {
    const rows = await q.query<EventRow>(
      `SELECT ${EVENT_SELECT_LIST} FROM noetl.event
        WHERE stream_id = $1 AND tenant_id = $2 AND organization_id = $3
          AND stream_version > COALESCE((SELECT stream_version FROM noetl.event WHERE event_id = $4::bigint AND stream_id = $1), $7::bigint, 0)
          AND ($5::text[] IS NULL OR event_type = ANY($5::text[]))
        ORDER BY stream_version LIMIT $6`,
      [
        streamId,
        scope.tenantId,
        scope.organizationId,
        query.afterEventId ?? null,
        query.types && query.types.length > 0 ? query.types : null,
        query.limit,
        query.afterPosition ?? null,
      ],
    );
    return rows.map(toLedgerEvent);
  }

  async resolveCutoff(q: Queryable, scope: TenantScope, streamId: string, cutoff: StreamCutoff): Promise<ResolvedCutoff> {
    const [found] = await q.query<{ version: string | null; exists: boolean; event_known: boolean }>(
      `SELECT (SELECT max(stream_version) FROM noetl.event
                WHERE stream_id = $1 AND tenant_id = $2 AND organization_id = $3
                  AND ($4::bigint IS NULL OR stream_version <= (SELECT stream_version FROM noetl.event WHERE event_id = $4::bigint AND stream_id = $1))
                  AND ($5::timestamptz IS NULL OR event_time <= $5::timestamptz)
                  AND ($6::bigint IS NULL OR stream_version <= $6::bigint)) AS version,
              EXISTS (SELECT 1 FROM noetl.event WHERE stream_id = $1 AND tenant_id = $2 AND organization_id = $3) AS exists,
              ($4::bigint IS NULL OR EXISTS (SELECT 1 FROM noetl.event WHERE event_id = $4::bigint AND stream_id = $1)) AS event_known`,
      [streamId, scope.tenantId, scope.organizationId, cutoff.eventId ?? null, cutoff.time ?? null, cutoff.position ?? null],
    );
    return {
      version: found?.version === null || found?.version === undefined ? null : Number(found.version),
      streamExists: found?.exists === true,
      eventKnown: found?.event_known === true,
    };
  }

  /** The event at a version of a stream: its id and time. */
  async at(q: Queryable, streamId: string, version: number): Promise<{ eventId: string; eventTime: Date } | undefined> {
    const [row] = await q.query<{ event_id: string; event_time: Date }>(
      'SELECT event_id, event_time FROM noetl.event WHERE stream_id = $1 AND stream_version = $2',
      [streamId, version],
    );
    return row && { eventId: String(row.event_id), eventTime: row.event_time };
  }

  /** Whether the execution's terminal event is in the ledger as `q` sees it. */
  async hasEnded(q: Queryable, executionId: string): Promise<boolean> {
    return (await q.query(HAS_ENDED_SQL, [executionId])).length > 0;
  }

  /** Whether retention purged the execution (its audit says so). */
  async wasPurged(q: Queryable, executionId: string): Promise<boolean> {
    return (await q.query(WAS_PURGED_SQL, [executionId])).length > 0;
  }

  /** The command's `call.partial` events past its execution's planned version, and that version. */
  async unplannedPartials(
    q: Queryable,
    scope: TenantScope,
    streamId: string,
    executionId: string,
    commandId: string,
  ): Promise<UnplannedPartials> {
    const [row] = await q.query<{ count: number; planned_version: number }>(UNPLANNED_PARTIALS_SQL, [
      streamId,
      executionId,
      scope.tenantId,
      scope.organizationId,
      commandId,
    ]);
    return { count: row?.count ?? 0, plannedVersion: row?.planned_version ?? 0 };
  }

  /** Every execution of the scope, oldest first. */
  async executionIds(q: Queryable, scope: TenantScope): Promise<string[]> {
    const rows = await q.query<{ execution_id: string }>(
      `SELECT execution_id FROM noetl.event
        WHERE event_type = $1 AND tenant_id = $2 AND organization_id = $3 ORDER BY execution_id`,
      [EventType.ExecutionStarted, scope.tenantId, scope.organizationId],
    );
    return rows.map((row) => String(row.execution_id));
  }
}
