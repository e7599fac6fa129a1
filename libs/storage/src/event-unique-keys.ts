import { EventType, TERMINAL_EXECUTION_EVENTS, type AnyNewEvent, type EventEnvelope } from '@noetl/event-kernel';

/** The unique indexes of `noetl.event` (see the initial migration), by the key they protect. */
export const EventUniqueKey = {
  EventId: 'event_id',
  CommandIssued: 'command_issued',
  LoopDone: 'loop_done',
  Terminal: 'terminal',
  IdempotencyKey: 'idempotency_key',
  StreamVersion: 'stream_version',
} as const;

export type EventUniqueKeyName = (typeof EventUniqueKey)[keyof typeof EventUniqueKey];

/**
 * The terminal event types as an SQL list literal, `('execution.completed', ...)`:
 * written into a statement, not passed as a parameter, so that its plan
 * uses the partial index `uidx_event_terminal` (whose predicate is this list)
 * also when the plan is generic (a prepared statement's). With `= ANY($n)`
 * a generic plan scanned every event of the execution.
 */
export const TERMINAL_EVENT_TYPES_SQL = `(${TERMINAL_EXECUTION_EVENTS.map((type) => `'${type}'`).join(', ')})`;

/**
 * The unique keys an event holds besides its id and stream position, each
 * as a text naming the key and its value (two events with one in common
 * collide): its idempotency key, a command's issue, a loop's end, an
 * execution's end.
 */
export function distinctiveKeys(event: AnyNewEvent): string[] {
  const keys: string[] = [];
  if (event.idempotency_key !== null) keys.push(`key:${event.tenant_id}:${event.idempotency_key}`);
  if (event.event_type === EventType.CommandIssued) keys.push(`issued:${event.execution_id}:${event.command_id ?? ''}`);
  if (event.event_type === EventType.LoopDone) keys.push(`done:${event.execution_id}:${event.loop_id ?? ''}`);
  if ((TERMINAL_EXECUTION_EVENTS as readonly string[]).includes(event.event_type)) keys.push(`end:${event.execution_id}`);
  return keys;
}

/** A WHERE clause that finds the stored event an insert collided with on one unique key. */
export interface UniqueKeyLookup {
  key: EventUniqueKeyName;
  where: string;
  params: unknown[];
}

/**
 * Every unique key a sealed event could collide on, most specific first: the
 * same event (a retried append) before a rival event for the same command,
 * loop, terminal or idempotency key, before the stream position (which the
 * stream lock makes unreachable unless someone appends without it).
 */
export function uniqueKeyLookups(event: EventEnvelope): UniqueKeyLookup[] {
  const lookups: UniqueKeyLookup[] = [{ key: EventUniqueKey.EventId, where: 'event_id = $1::bigint', params: [event.event_id] }];
  if (event.event_type === EventType.CommandIssued && event.command_id !== null) {
    lookups.push({
      key: EventUniqueKey.CommandIssued,
      where: 'execution_id = $1::bigint AND command_id = $2::bigint AND event_type = $3',
      params: [event.execution_id, event.command_id, EventType.CommandIssued],
    });
  }
  if (event.event_type === EventType.LoopDone && event.loop_id !== null) {
    lookups.push({
      key: EventUniqueKey.LoopDone,
      where: 'execution_id = $1::bigint AND loop_id = $2::bigint AND event_type = $3',
      params: [event.execution_id, event.loop_id, EventType.LoopDone],
    });
  }
  if ((TERMINAL_EXECUTION_EVENTS as readonly string[]).includes(event.event_type)) {
    lookups.push({
      key: EventUniqueKey.Terminal,
      where: `execution_id = $1::bigint AND event_type IN ${TERMINAL_EVENT_TYPES_SQL}`,
      params: [event.execution_id],
    });
  }
  if (event.idempotency_key !== null) {
    lookups.push({
      key: EventUniqueKey.IdempotencyKey,
      where: 'tenant_id = $1 AND idempotency_key = $2',
      params: [event.tenant_id, event.idempotency_key],
    });
  }
  lookups.push({
    key: EventUniqueKey.StreamVersion,
    where: 'stream_id = $1 AND stream_version = $2::int',
    params: [event.stream_id, event.stream_version],
  });
  return lookups;
}
