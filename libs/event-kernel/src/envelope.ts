import { canonicalChecksum } from './canonical-json';
import type { EventPayloads, JsonObject, PayloadRef } from './event-payloads';
import { EventType, type EventTypeName } from './event-types';
import type { IdGenerator } from './ids';
import type { StagedPayload } from './payload-parts';

export type AggregateType = 'execution' | 'command' | 'stage' | 'frame' | 'timer';

/** The event envelope of DESIGN.md s5: one row of `noetl.event`. */
export interface EventEnvelope<T extends EventTypeName = EventTypeName> {
  event_id: string;
  tenant_id: string;
  organization_id: string;
  execution_id: string;
  stream_id: string;
  stream_version: number;
  aggregate_type: AggregateType;
  aggregate_id: string;
  event_type: T;
  schema_name: string;
  schema_version: number;
  event_time: string;
  ingest_time: string;
  producer: string;
  causation_id: string | null;
  correlation_id: string | null;
  idempotency_key: string | null;
  parent_event_id: string | null;
  parent_execution_id: string | null;
  node_name: string | null;
  command_id: string | null;
  stage_id: string | null;
  frame_id: string | null;
  loop_id: string | null;
  status: string | null;
  payload: EventPayloads[T];
  payload_ref: PayloadRef | null;
  meta: JsonObject;
  checksum: string;
}

/** Any event, discriminated by `event_type`. */
export type LedgerEvent = { [K in EventTypeName]: EventEnvelope<K> }[EventTypeName];

/** An event ready to append: the store assigns `stream_version`, `ingest_time` and `checksum`. */
export type NewEvent<T extends EventTypeName = EventTypeName> = Omit<EventEnvelope<T>, 'stream_version' | 'ingest_time' | 'checksum'>;

export type AnyNewEvent = { [K in EventTypeName]: NewEvent<K> }[EventTypeName];

/** What a producer states about an event; everything else has a default. */
export interface EventDraft<T extends EventTypeName> {
  type: T;
  executionId: string;
  payload: EventPayloads[T];
  aggregate?: { type: AggregateType; id: string };
  causationId?: string | null;
  correlationId?: string | null;
  idempotencyKey?: string | null;
  parentEventId?: string | null;
  parentExecutionId?: string | null;
  step?: string | null;
  commandId?: string | null;
  stageId?: string | null;
  frameId?: string | null;
  loopId?: string | null;
  status?: string | null;
  payloadRef?: PayloadRef | null;
  meta?: JsonObject;
  /** Payloads the event refers to that a pure planner could only state: whoever appends the draft stores them first (invariant 6). Not part of the envelope. */
  staged?: StagedPayload[];
}

export interface EnvelopeContext {
  ids: IdGenerator;
  now: () => Date;
  producer: string;
  tenantId: string;
  organizationId: string;
}

/** The schema version of an event type that never changed shape. */
export const SCHEMA_VERSION = 1;

/** Event types whose payload changed shape: the version new events are written at (older ones are upcast when read). */
const SCHEMA_VERSIONS: Partial<Record<EventTypeName, number>> = { [EventType.FrameCommitted]: 2 };

export function schemaVersionOf(type: EventTypeName): number {
  return SCHEMA_VERSIONS[type] ?? SCHEMA_VERSION;
}

export function schemaNameOf(type: EventTypeName): string {
  return `noetl.${type}`;
}

export function streamIdOf(aggregate: { type: AggregateType; id: string }): string {
  return `${aggregate.type}/${aggregate.id}`;
}

/** Builds the envelope of a new event; the aggregate defaults to the execution. */
export function buildEvent<T extends EventTypeName>(draft: EventDraft<T>, context: EnvelopeContext): NewEvent<T> {
  const aggregate = draft.aggregate ?? { type: 'execution' as const, id: draft.executionId };
  return {
    event_id: context.ids.next(),
    tenant_id: context.tenantId,
    organization_id: context.organizationId,
    execution_id: draft.executionId,
    stream_id: streamIdOf(aggregate),
    aggregate_type: aggregate.type,
    aggregate_id: aggregate.id,
    event_type: draft.type,
    schema_name: schemaNameOf(draft.type),
    schema_version: schemaVersionOf(draft.type),
    event_time: context.now().toISOString(),
    producer: context.producer,
    causation_id: draft.causationId ?? null,
    correlation_id: draft.correlationId ?? draft.executionId,
    idempotency_key: draft.idempotencyKey ?? null,
    parent_event_id: draft.parentEventId ?? null,
    parent_execution_id: draft.parentExecutionId ?? null,
    node_name: draft.step ?? null,
    command_id: draft.commandId ?? null,
    stage_id: draft.stageId ?? null,
    frame_id: draft.frameId ?? null,
    loop_id: draft.loopId ?? null,
    status: draft.status ?? null,
    payload: draft.payload,
    payload_ref: draft.payloadRef ?? null,
    meta: draft.meta ?? {},
  };
}

/** sha256 of the canonical JSON of the envelope without its checksum. */
export function envelopeChecksum(event: Omit<EventEnvelope, 'checksum'>): string {
  const { checksum: _ignored, ...rest } = event as EventEnvelope;
  return canonicalChecksum(rest);
}

/** Whether an event as stored still matches its checksum: false when its row was changed behind the runtime (issue 25). */
export function isIntact(event: EventEnvelope): boolean {
  return envelopeChecksum(event) === event.checksum;
}

/** Completes a new event with what the store assigns at append. */
export function sealEvent<T extends EventTypeName>(event: NewEvent<T>, streamVersion: number, ingestTime: Date): EventEnvelope<T> {
  const sealed = { ...event, stream_version: streamVersion, ingest_time: ingestTime.toISOString() };
  return { ...sealed, checksum: envelopeChecksum(sealed as Omit<EventEnvelope, 'checksum'>) } as EventEnvelope<T>;
}
