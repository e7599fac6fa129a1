import { isEventType, type AnyNewEvent, type EventEnvelope, type JsonObject, type LedgerEvent } from '@noetl/event-kernel';
import { InvalidEventError } from './event-store';

/** The columns of `noetl.event`, in envelope order, with the cast each parameter gets. */
const EVENT_COLUMN_TYPES = {
  event_id: 'bigint',
  tenant_id: 'text',
  organization_id: 'text',
  execution_id: 'bigint',
  stream_id: 'text',
  stream_version: 'int',
  aggregate_type: 'text',
  aggregate_id: 'text',
  event_type: 'text',
  schema_name: 'text',
  schema_version: 'int',
  event_time: 'timestamptz',
  ingest_time: 'timestamptz',
  producer: 'text',
  causation_id: 'bigint',
  correlation_id: 'text',
  idempotency_key: 'text',
  parent_event_id: 'bigint',
  parent_execution_id: 'bigint',
  node_name: 'text',
  command_id: 'bigint',
  stage_id: 'bigint',
  frame_id: 'bigint',
  loop_id: 'bigint',
  status: 'text',
  payload: 'jsonb',
  payload_ref: 'jsonb',
  meta: 'jsonb',
  checksum: 'text',
} as const satisfies Record<keyof EventEnvelope, string>;

type EventColumn = keyof typeof EVENT_COLUMN_TYPES;

export const EVENT_COLUMNS = Object.keys(EVENT_COLUMN_TYPES) as EventColumn[];
export const EVENT_SELECT_LIST = EVENT_COLUMNS.join(', ');

/** The PostgreSQL type of an event column, as the insert statements cast their parameters. */
export function eventColumnType(column: EventColumn): string {
  return EVENT_COLUMN_TYPES[column];
}

/**
 * Inserts one sealed event unless it collides with any unique index; RETURNING
 * yields the row when it went in and nothing when it collided.
 */
export const INSERT_EVENT_SQL =
  `INSERT INTO noetl.event (${EVENT_SELECT_LIST}) ` +
  `VALUES (${EVENT_COLUMNS.map((column, i) => `$${i + 1}::${EVENT_COLUMN_TYPES[column]}`).join(', ')}) ` +
  `ON CONFLICT DO NOTHING RETURNING ${EVENT_SELECT_LIST}`;

/** A row of `noetl.event` as pg returns it: int8 as string, int4 as number, timestamptz as Date, jsonb parsed. */
export type EventRow = Omit<EventEnvelope, 'aggregate_type' | 'event_type' | 'event_time' | 'ingest_time' | 'payload' | 'meta'> & {
  aggregate_type: string;
  event_type: string;
  event_time: Date | string;
  ingest_time: Date | string;
  payload: unknown;
  meta: JsonObject | null;
};

const AGGREGATE_TYPES = ['execution', 'command', 'stage', 'frame', 'timer'] as const;
type AggregateType = EventEnvelope['aggregate_type'];

function isAggregateType(value: string): value is AggregateType {
  return (AGGREGATE_TYPES as readonly string[]).includes(value);
}

/** Millisecond ISO-8601 in UTC, the form `sealEvent` writes; timestamptz keeps it exactly. */
export function isoTimestamp(value: Date | string, field = 'timestamp'): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new InvalidEventError(`${field} is not a valid timestamp: ${String(value)}`);
  return date.toISOString();
}

/**
 * The event exactly as it will be stored: every envelope member present (null,
 * never undefined), nothing else, `event_time` in the canonical ISO form.
 * Sealing this object makes the checksum of the row read back verify.
 */
export function normaliseNewEvent<E extends AnyNewEvent>(event: E): E {
  if (!isEventType(event.event_type)) throw new InvalidEventError(`unknown event type "${String(event.event_type)}"`);
  if (typeof event.payload !== 'object' || event.payload === null || Array.isArray(event.payload)) {
    throw new InvalidEventError(`${event.event_type} ${event.event_id} has no payload object`);
  }
  for (const field of ['event_id', 'tenant_id', 'organization_id', 'execution_id', 'stream_id', 'aggregate_id'] as const) {
    if (typeof event[field] !== 'string' || event[field] === '') {
      throw new InvalidEventError(`${event.event_type} ${event.event_id} has no ${field}`);
    }
  }
  const normalised = {
    event_id: event.event_id,
    tenant_id: event.tenant_id,
    organization_id: event.organization_id,
    execution_id: event.execution_id,
    stream_id: event.stream_id,
    aggregate_type: event.aggregate_type,
    aggregate_id: event.aggregate_id,
    event_type: event.event_type,
    schema_name: event.schema_name,
    schema_version: event.schema_version,
    event_time: isoTimestamp(event.event_time, 'event_time'),
    producer: event.producer,
    causation_id: event.causation_id ?? null,
    correlation_id: event.correlation_id ?? null,
    idempotency_key: event.idempotency_key ?? null,
    parent_event_id: event.parent_event_id ?? null,
    parent_execution_id: event.parent_execution_id ?? null,
    node_name: event.node_name ?? null,
    command_id: event.command_id ?? null,
    stage_id: event.stage_id ?? null,
    frame_id: event.frame_id ?? null,
    loop_id: event.loop_id ?? null,
    status: event.status ?? null,
    payload: event.payload,
    payload_ref: event.payload_ref ?? null,
    meta: event.meta ?? {},
  };
  return normalised as E;
}

const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

/** Parameters of INSERT_EVENT_SQL for a sealed event. jsonb goes as JSON text (pg would turn arrays into SQL arrays). */
export function eventInsertParams(event: EventEnvelope): unknown[] {
  return EVENT_COLUMNS.map((column) => (EVENT_COLUMN_TYPES[column] === 'jsonb' ? json(event[column]) : event[column]));
}

/** A stored row back to the envelope it was sealed from. */
export function toLedgerEvent(row: EventRow): LedgerEvent {
  if (!isEventType(row.event_type)) throw new InvalidEventError(`event ${row.event_id} has unknown type "${row.event_type}"`);
  if (!isAggregateType(row.aggregate_type)) {
    throw new InvalidEventError(`event ${row.event_id} has unknown aggregate type "${row.aggregate_type}"`);
  }
  const envelope: EventEnvelope = {
    event_id: row.event_id,
    tenant_id: row.tenant_id,
    organization_id: row.organization_id,
    execution_id: row.execution_id,
    stream_id: row.stream_id,
    stream_version: row.stream_version,
    aggregate_type: row.aggregate_type,
    aggregate_id: row.aggregate_id,
    event_type: row.event_type,
    schema_name: row.schema_name,
    schema_version: row.schema_version,
    event_time: isoTimestamp(row.event_time, 'event_time'),
    ingest_time: isoTimestamp(row.ingest_time, 'ingest_time'),
    producer: row.producer,
    causation_id: row.causation_id,
    correlation_id: row.correlation_id,
    idempotency_key: row.idempotency_key,
    parent_event_id: row.parent_event_id,
    parent_execution_id: row.parent_execution_id,
    node_name: row.node_name,
    command_id: row.command_id,
    stage_id: row.stage_id,
    frame_id: row.frame_id,
    loop_id: row.loop_id,
    status: row.status,
    payload: row.payload as EventEnvelope['payload'],
    payload_ref: row.payload_ref,
    meta: row.meta ?? {},
    checksum: row.checksum,
  };
  return envelope as LedgerEvent;
}
