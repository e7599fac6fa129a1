import {
  buildEvent,
  defaultUpcasters,
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
  EventRepository,
  type AppendOptions,
  type AppendResult,
  type EventPageQuery,
  type LedgerTransaction,
  type PgEventStore,
  type Queryable,
  type ResolvedCutoff,
  type StreamCutoff,
  type TenantScope,
  type UnplannedPartials,
} from '@noetl/storage';
import type { RuntimeMetrics } from './metrics';

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
  private readonly events = new EventRepository();

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

  /** `defer`, `minted`: see AppendOptions (the events go in with the transaction's next append, or before it commits). */
  async append(
    q: Queryable,
    drafts: readonly EventDraft<EventTypeName>[],
    options: Pick<AppendOptions, 'defer' | 'minted'> = {},
  ): Promise<AppendResult[]> {
    if (drafts.length === 0) return [];
    const results = await this.metrics.span('append', () => this.store.appendWithin(q, this.seal(drafts), options));
    for (const result of results) if (!result.duplicate) this.metrics.eventsAppended.inc({ type: result.event.event_type });
    return results;
  }

  /**
   * Holds the execution stream's append lock (the one PgEventStore takes) for
   * the rest of `q`'s transaction. Writers that also lock rows take it FIRST
   * (the repositories' `lock` take it so), so the scheduler and the control
   * plane never wait on each other in a cycle, and a reader under it sees
   * every event of the stream that will precede its own.
   */
  async lockStream(q: LedgerTransaction, executionId: string): Promise<void> {
    await q.lockStream(executionStream(executionId));
  }

  /**
   * `lockStream` for an execution whose id this process has just made: its
   * stream holds no event yet, so its head is noted as 0 instead of read,
   * and its first append goes without a round trip of its own. Were the id
   * ever taken, the unique (stream, version) index would refuse the append.
   */
  async lockNewStream(q: LedgerTransaction, executionId: string): Promise<void> {
    const stream = executionStream(executionId);
    await q.lockStream(stream);
    q.noteHead(stream, 0);
  }

  /**
   * Whether the execution's terminal event is in the ledger as `q` sees it.
   * Under `lockStream` that is final: a writer that checks it first never
   * appends after the end (DESIGN.md s5: nothing follows a terminal event).
   */
  async hasEnded(q: Queryable, executionId: string): Promise<boolean> {
    await this.store.flushWithin(q);
    return this.events.hasEnded(q, executionId);
  }

  /**
   * The events `q`'s transaction appended to the execution's stream so far
   * (it holds the stream's lock), with the stream's version before them;
   * undefined when it appended none. Read back from nowhere: the planner of
   * a report's transaction takes them from here.
   */
  appendedWithin(q: LedgerTransaction, executionId: string): { before: number; events: LedgerEvent[] } | undefined {
    const appended = q.appendedWithin(executionStream(executionId));
    return appended && { before: appended.before, events: appended.events.map((event) => this.upcasters.upcast(event) as LedgerEvent) };
  }

  /** How many of the command's streamed chunks (`call.partial`) the scheduler has not planned yet, and how far it has planned. */
  async unplannedPartials(q: Queryable, executionId: string, commandId: string): Promise<UnplannedPartials> {
    return this.events.unplannedPartials(q, this.scope, executionStream(executionId), executionId, commandId);
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
  async readIntactAfter(
    q: Queryable,
    executionId: string,
    afterVersion: number,
    limit: number,
    { verify }: { verify: boolean },
  ): Promise<{ events: LedgerEvent[]; changed?: LedgerEvent }> {
    // What this transaction deferred is part of what it sees.
    await this.store.flushWithin(q);
    const events: LedgerEvent[] = [];
    for (const stored of await this.events.readAfter(q, this.scope, executionStream(executionId), afterVersion, limit)) {
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
    return this.events.readChainAfter(q, this.scope, executionStream(executionId), afterVersion, limit);
  }

  /** A page of the execution's events as stored (a reader's view: `GET /api/executions/{id}/events`). */
  async page(q: Queryable, executionId: string, query: EventPageQuery): Promise<LedgerEvent[]> {
    return this.events.page(q, this.scope, executionStream(executionId), query);
  }

  /** The last version of the execution's stream at or before `cutoff` (a replay's point), and whether the stream and a named event exist. */
  async resolveCutoff(q: Queryable, executionId: string, cutoff: StreamCutoff): Promise<ResolvedCutoff> {
    return this.events.resolveCutoff(q, this.scope, executionStream(executionId), cutoff);
  }

  /** The id and time of the execution's event at `version`. */
  async eventAt(q: Queryable, executionId: string, version: number): Promise<{ eventId: string; eventTime: Date } | undefined> {
    return this.events.at(q, executionStream(executionId), version);
  }

  /** Whether retention purged the execution (its audit says so): its ledger has gaps by design. */
  async wasPurged(q: Queryable, executionId: string): Promise<boolean> {
    return this.events.wasPurged(q, executionId);
  }

  /** Every execution of the scope, oldest first (a projection rebuild's list). */
  async executionIds(q: Queryable): Promise<string[]> {
    return this.events.executionIds(q, this.scope);
  }

  now(): Date {
    return this.clock();
  }
}
