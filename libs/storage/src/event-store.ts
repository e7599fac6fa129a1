import type { AnyNewEvent, LedgerEvent } from '@noetl/event-kernel';
import { StorageError } from './storage-error';

export const EVENT_STORE = Symbol('EventStore');

export interface AppendResult {
  event: LedgerEvent;
  /** True when the event collided with one already in the ledger; `event` is then that existing event. */
  duplicate: boolean;
}

export interface AppendOptions {
  /** Optimistic concurrency: the stream must be at exactly this version before the batch (0 = empty). */
  expectedVersion?: { streamId: string; version: number };
  /**
   * Inside a transaction: seal the events now (ids, versions, and what
   * `appendWithin` returns are final) and insert them with the
   * transaction's next append, or just before it commits: one statement
   * for a report and the decisions it leads to. Only for events that carry
   * no unique key but their id and stream position (no idempotency key, no
   * `command.issued`, `loop.done` or terminal event), which cannot collide
   * under the stream's lock; others are inserted at once as ever.
   */
  defer?: boolean;
  /**
   * With `defer`: the caller vouches that the batch's unique keys besides
   * a loop's or an execution's end are new, because it made them in this
   * transaction under the execution's stream lock: the scheduler's
   * decisions, each command id minted by its planner and each idempotency
   * key naming a trigger past the execution's cursor (which moves in the
   * same transaction). Such events are deferred like events without a key,
   * so a step's report, its decisions and its next claim go in one round
   * trip. Were a key taken after all, the unique index fails the
   * transaction rather than dropping the event (see Scheduler.checkedPlans).
   */
  minted?: boolean;
}

/** The ledger (DESIGN.md invariant 1): append-only, deduplicated at the database. */
export interface EventStore {
  /**
   * Appends in one transaction; a duplicate (any unique index: same
   * event_id, command.issued per command, loop.done per loop, one terminal
   * per execution, idempotency key) returns the existing event with
   * duplicate=true instead of failing.
   */
  append(events: AnyNewEvent[], options?: AppendOptions): Promise<AppendResult[]>;
  /** Stream order (stream_version ascending), from `fromVersion` inclusive (default 1). */
  readStream(streamId: string, fromVersion?: number): Promise<LedgerEvent[]>;
  /** The stream's last version; 0 when empty. */
  streamVersion(streamId: string): Promise<number>;
}

export class StreamVersionConflict extends StorageError {
  readonly code = 'stream_version_conflict';

  constructor(
    readonly streamId: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`stream ${streamId} is at version ${actual}, expected ${expected}`);
  }
}

/** An event the ledger refuses as written (unknown type, bad timestamp, missing payload). */
export class InvalidEventError extends StorageError {
  readonly code = 'event_invalid';
}

/**
 * A new event collided with one that belongs to another tenant or organization
 * (e.g. the same idempotency key in two organizations of one tenant). The
 * existing event is not returned: it is not the caller's to see.
 */
export class EventKeyTakenError extends StorageError {
  readonly code = 'event_key_taken';
}
