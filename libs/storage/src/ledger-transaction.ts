import type { EventEnvelope, LedgerEvent } from '@noetl/event-kernel';
import type { Queryable } from './database';
import { sqlLiteral, type PipelinedTransaction } from './pipelined-transaction';
import type { Sql } from './prepared-statements';

/** What one transaction appended to a stream it holds the lock of: the stream's head before, and the events since, in order. */
export interface AppendedWithin {
  before: number;
  events: LedgerEvent[];
}

/**
 * One transaction of Database.transaction, and what it knows that lasts as
 * long as it does: the stream locks it holds (an advisory xact lock lasts
 * until the transaction ends, so asking again is a round trip that changes
 * nothing), the heads of those streams as it last read or wrote them
 * (nobody else appends to them meanwhile, so an append need not read them
 * again), the events it appended to them (the scheduler plans a report's
 * events from here, not from a read), the events it sealed but has not
 * inserted yet (`AppendOptions.defer`), and the work to do before its COMMIT.
 *
 * The object is the transaction's Queryable, so this state lives on the
 * transaction it belongs to and ends with it, rather than in maps keyed by
 * it. A repository that locks rows takes it by this type (a row lock needs
 * a transaction, and takes the stream lock first, from here, not through a
 * callback into the runtime); code that also runs on the pool or a
 * dedicated connection takes a Queryable and asks `transactionOf`, which
 * finds no transaction there, so nothing is remembered beyond a statement.
 * Its state is made on first use: a transaction that locks no stream makes
 * none. It sends nothing of its own: a stream lock is queued as a write, to
 * go with BEGIN and the next statement, and a known head saves a read.
 */
export class LedgerTransaction implements Queryable {
  private held: Set<string> | undefined;
  private heads: Map<string, number> | undefined;
  private appended: Map<string, AppendedWithin> | undefined;
  private deferred: EventEnvelope[] | undefined;
  private beforeCommit: (() => Promise<void>)[] | undefined;

  constructor(private readonly pipeline: PipelinedTransaction) {}

  query<T = Record<string, unknown>>(sql: Sql, params?: unknown[]): Promise<T[]> {
    return this.pipeline.query<T>(sql, params);
  }

  /** A write whose result nobody reads (a lock, a row update): it goes with the next statement or the COMMIT, in order (PipelinedTransaction). */
  enqueue(sql: Sql, params: readonly unknown[] = []): Promise<void> {
    return this.pipeline.enqueue(sql, params);
  }

  /** Takes the append lock of each stream, in sorted order (two writers never wait on each other in a cycle), once per transaction. */
  async lockStreams(streamIds: Iterable<string>): Promise<void> {
    for (const streamId of [...new Set(streamIds)].sort()) await this.lockStream(streamId);
  }

  /** Takes one stream's append lock, once per transaction: always before a row lock (see the repositories' `lock`). */
  async lockStream(streamId: string): Promise<void> {
    if (this.held?.has(streamId)) return;
    await this.pipeline.enqueue(streamLockSql(streamId));
    (this.held ??= new Set()).add(streamId);
  }

  /** The heads it knows of `streamIds` (those it holds the lock of and read or wrote); unknown ones are left out. */
  knownHeads(streamIds: readonly string[]): Map<string, number> {
    const known = new Map<string, number>();
    if (!this.held || !this.heads) return known;
    for (const streamId of streamIds) {
      const head = this.heads.get(streamId);
      if (head !== undefined && this.held.has(streamId)) known.set(streamId, head);
    }
    return known;
  }

  /**
   * Records a head it read under the stream's lock (without the lock,
   * nothing). A head lower than one it knows already is kept higher: the
   * read could not see the events it deferred.
   */
  noteHead(streamId: string, version: number): void {
    if (!this.held?.has(streamId)) return;
    const heads = (this.heads ??= new Map());
    heads.set(streamId, Math.max(version, heads.get(streamId) ?? 0));
  }

  /** Records events it appended, in stream order per stream: they move the heads, and `appendedWithin` lists them. */
  noteAppended(events: readonly LedgerEvent[]): void {
    if (!this.held) return;
    for (const event of events) {
      if (!this.held.has(event.stream_id)) continue;
      const lists = (this.appended ??= new Map());
      const list = lists.get(event.stream_id);
      if (list) list.events.push(event);
      else lists.set(event.stream_id, { before: event.stream_version - 1, events: [event] });
      (this.heads ??= new Map()).set(event.stream_id, event.stream_version);
    }
  }

  /** The events it appended to `streamId` so far (under its lock), with the head before the first; undefined when none. */
  appendedWithin(streamId: string): AppendedWithin | undefined {
    return this.appended?.get(streamId);
  }

  /**
   * Keeps sealed events to insert later, in order. True the first time: the
   * caller then arranges (`onBeforeCommit`) that what no later append takes
   * goes in before the commit.
   */
  defer(sealed: readonly EventEnvelope[]): boolean {
    if (this.deferred) {
      this.deferred.push(...sealed);
      return false;
    }
    this.deferred = [...sealed];
    return true;
  }

  /** The events it deferred and nobody took yet, taken (the caller inserts them). */
  takeDeferred(): EventEnvelope[] {
    const pending = this.deferred ?? [];
    if (pending.length > 0) this.deferred = [];
    return pending;
  }

  /** Runs `hook` just before the transaction commits (not if it rolls back), in the order asked. */
  onBeforeCommit(hook: () => Promise<void>): void {
    (this.beforeCommit ??= []).push(hook);
  }

  /** What `onBeforeCommit` asked for, in order (Database.transaction, before its COMMIT). */
  async runBeforeCommit(): Promise<void> {
    for (const hook of this.beforeCommit ?? []) await hook();
  }
}

/** `q` as the transaction it is, or undefined: the pool or a dedicated connection, where nothing lasts beyond a statement. */
export function transactionOf(q: Queryable): LedgerTransaction | undefined {
  return q instanceof LedgerTransaction ? q : undefined;
}

/** A stream's append lock, written into the text (no parameter), so it can be queued to go with BEGIN and the next statement. */
export function streamLockSql(streamId: string): string {
  return `SELECT pg_advisory_xact_lock(hashtextextended(${sqlLiteral(streamId)}, 0))`;
}
