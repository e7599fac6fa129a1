import {
  buildEvent,
  defaultUpcasters,
  EventType,
  isIntact,
  streamIdOf,
  type AnyNewEvent,
  type ChainedEvent,
  type EventDraft,
  type EventTypeName,
  type IdGenerator,
  type LedgerEvent,
  type UpcasterRegistry,
} from '@noetl/event-kernel';
import {
  appendedWithin,
  EVENT_SELECT_LIST,
  lockStreams,
  noteHeads,
  prepared,
  TERMINAL_EVENT_TYPES_SQL,
  toLedgerEvent,
  type AppendResult,
  type EventRow,
  type PgEventStore,
  type Queryable,
  type TenantScope,
} from '@noetl/storage';
import type { RuntimeMetrics } from './metrics';

const READ_CHAIN_SQL = prepared(`
  SELECT ${EVENT_SELECT_LIST}, chain_hash FROM noetl.event
   WHERE stream_id = $1 AND stream_version > $2 AND tenant_id = $3 AND organization_id = $4
   ORDER BY stream_version LIMIT $5`);
const WAS_PURGED_SQL = prepared(`
  SELECT 1 FROM noetl.event WHERE execution_id = $1::bigint AND event_type = '${EventType.AdminAction}' AND payload->>'action' = 'purge' LIMIT 1`);
const HAS_ENDED_SQL = prepared(`SELECT 1 FROM noetl.event WHERE execution_id = $1::bigint AND event_type IN ${TERMINAL_EVENT_TYPES_SQL} LIMIT 1`);
/** The command's `call.partial` events past its execution's planned version: chunks the scheduler has not routed yet (only the stream's tail is read). */
const UNPLANNED_PARTIALS_SQL = prepared(`
  SELECT count(*)::int AS count FROM noetl.event ev
   WHERE ev.stream_id = $1 AND ev.tenant_id = $3 AND ev.organization_id = $4
     AND ev.stream_version > (SELECT x.planned_version FROM noetl.execution x WHERE x.execution_id = $2::bigint)
     AND ev.event_type = '${EventType.CallPartial}' AND ev.command_id = $5::bigint`);
const READ_AFTER_SQL = prepared(`
  SELECT ${EVENT_SELECT_LIST} FROM noetl.event
   WHERE stream_id = $1 AND stream_version > $2 AND tenant_id = $3 AND organization_id = $4
   ORDER BY stream_version LIMIT $5`);

/** Every event of an execution is on its stream, so the stream version is the ledger order every consumer follows. */
export function executionStream(executionId: string): string {
  return streamIdOf({ type: 'execution', id: executionId });
}

/**
 * How this process writes and reads the ledger: it stamps drafts with ids,
 * time, producer and tenancy, appends them (in the caller's transaction),
 * counts them, and reads an execution's stream in version order.
 */
export class Ledger {
  constructor(
    private readonly store: PgEventStore,
    readonly ids: IdGenerator,
    readonly scope: TenantScope,
    private readonly producer: string,
    private readonly metrics: RuntimeMetrics,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Lifts an event written at an older schema version to the current one.
   * Every read of the ledger applies it, so every fold (the scheduler's, the
   * projector's, replay's) sees one shape; the stored events stay as written.
   */
  readonly upcasters: UpcasterRegistry = defaultUpcasters();

  seal(drafts: readonly EventDraft<EventTypeName>[]): AnyNewEvent[] {
    return drafts.map(
      (draft) =>
        buildEvent(draft, {
          ids: this.ids,
          now: this.clock,
          producer: this.producer,
          tenantId: this.scope.tenantId,
          organizationId: this.scope.organizationId,
        }) as AnyNewEvent,
    );
  }

  /** `defer`: see AppendOptions (the events go in with the transaction's next append, or before it commits). */
  async append(q: Queryable, drafts: readonly EventDraft<EventTypeName>[], options: { defer?: boolean } = {}): Promise<AppendResult[]> {
    if (drafts.length === 0) return [];
    const results = await this.metrics.span('append', () => this.store.appendWithin(q, this.seal(drafts), options));
    for (const result of results) if (!result.duplicate) this.metrics.eventsAppended.inc({ type: result.event.event_type });
    return results;
  }

  /**
   * Holds the execution stream's append lock (the one PgEventStore takes) for
   * the rest of `q`'s transaction. Writers that also lock rows take it FIRST,
   * so the scheduler and the control plane never wait on each other in a cycle,
   * and a reader under it sees every event of the stream that will precede its own.
   */
  async lockStream(q: Queryable, executionId: string): Promise<void> {
    await lockStreams(q, [executionStream(executionId)]);
  }

  /**
   * `lockStream` for an execution whose id this process has just made: its
   * stream holds no event yet, so its head is noted as 0 instead of read,
   * and its first append goes without a round trip of its own. Were the id
   * ever taken, the unique (stream, version) index would refuse the append.
   */
  async lockNewStream(q: Queryable, executionId: string): Promise<void> {
    const stream = executionStream(executionId);
    await lockStreams(q, [stream]);
    noteHeads(q, new Map([[stream, 0]]));
  }

  /**
   * Whether the execution's terminal event is in the ledger as `q` sees it.
   * Under `lockStream` that is final: a writer that checks it first never
   * appends after the end (DESIGN.md s5: nothing follows a terminal event).
   */
  async hasEnded(q: Queryable, executionId: string): Promise<boolean> {
    await this.store.flushWithin(q);
    const rows = await q.query(HAS_ENDED_SQL, [executionId]);
    return rows.length > 0;
  }

  /**
   * The events `q`'s transaction appended to the execution's stream so far
   * (it holds the stream's lock), with the stream's version before them;
   * undefined when it appended none. Read back from nowhere: the planner of
   * a report's transaction takes them from here.
   */
  appendedWithin(q: Queryable, executionId: string): { before: number; events: LedgerEvent[] } | undefined {
    const appended = appendedWithin(q, executionStream(executionId));
    return appended && { before: appended.before, events: appended.events.map((event) => this.upcasters.upcast(event) as LedgerEvent) };
  }

  /** How many of the command's streamed chunks (`call.partial`) the scheduler has not planned yet. */
  async unplannedPartials(q: Queryable, executionId: string, commandId: string): Promise<number> {
    const [row] = await q.query<{ count: number }>(UNPLANNED_PARTIALS_SQL, [executionStream(executionId), executionId, this.scope.tenantId, this.scope.organizationId, commandId]);
    return row?.count ?? 0;
  }

  /** The execution's events after `afterVersion`, in stream order, as `q` sees them (its own transaction's appends included). */
  async readAfter(q: Queryable, executionId: string, afterVersion: number, limit = 1000): Promise<LedgerEvent[]> {
    return (await this.readIntactAfter(q, executionId, afterVersion, limit, { verify: false })).events;
  }

  /**
   * `readAfter`, each event checked against its checksum as stored (before
   * it is upcast) when `verify`: the events before the first changed one,
   * and that one (as stored) in `changed`.
   */
  async readIntactAfter(q: Queryable, executionId: string, afterVersion: number, limit: number, { verify }: { verify: boolean }): Promise<{ events: LedgerEvent[]; changed?: LedgerEvent }> {
    // What this transaction deferred is part of what it sees.
    await this.store.flushWithin(q);
    const rows = await q.query<EventRow>(
      READ_AFTER_SQL,
      [executionStream(executionId), afterVersion, this.scope.tenantId, this.scope.organizationId, limit],
    );
    const events: LedgerEvent[] = [];
    for (const row of rows) {
      const stored = toLedgerEvent(row);
      if (verify && !isIntact(stored)) return { events, changed: stored };
      events.push(this.upcasters.upcast(stored) as LedgerEvent);
    }
    return { events };
  }

  /**
   * The execution's events after `afterVersion` as stored (not upcast: a
   * checksum is of what was written), each with the chain hash the database
   * gave it, in stream order: what `verify` checks.
   */
  async readChain(q: Queryable, executionId: string, afterVersion: number, limit = 1000): Promise<ChainedEvent[]> {
    const rows = await q.query<EventRow & { chain_hash: Buffer | null }>(
      READ_CHAIN_SQL,
      [executionStream(executionId), afterVersion, this.scope.tenantId, this.scope.organizationId, limit],
    );
    return rows.map(({ chain_hash: chainHash, ...row }) => ({ event: toLedgerEvent(row), chainHash }));
  }

  /** Whether retention purged the execution (its audit says so): its ledger has gaps by design. */
  async wasPurged(q: Queryable, executionId: string): Promise<boolean> {
    return (await q.query(WAS_PURGED_SQL, [executionId])).length > 0;
  }

  /** Every execution of the scope, oldest first (a projection rebuild's list). */
  async executionIds(q: Queryable): Promise<string[]> {
    const rows = await q.query<{ execution_id: string }>(
      `SELECT execution_id FROM noetl.event
        WHERE event_type = $1 AND tenant_id = $2 AND organization_id = $3 ORDER BY execution_id`,
      [EventType.ExecutionStarted, this.scope.tenantId, this.scope.organizationId],
    );
    return rows.map((row) => row.execution_id);
  }

  now(): Date {
    return this.clock();
  }
}
