import { canonicalJson, sha256Hex } from './canonical-json';
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

/**
 * The members a checksum covers: every member of the envelope but the
 * checksum (the compiler holds this list to the envelope's type), in the
 * order canonical JSON writes them, each with its key as written there.
 */
const SEALED_MEMBERS = Object.keys({
  event_id: true,
  tenant_id: true,
  organization_id: true,
  execution_id: true,
  stream_id: true,
  stream_version: true,
  aggregate_type: true,
  aggregate_id: true,
  event_type: true,
  schema_name: true,
  schema_version: true,
  event_time: true,
  ingest_time: true,
  producer: true,
  causation_id: true,
  correlation_id: true,
  idempotency_key: true,
  parent_event_id: true,
  parent_execution_id: true,
  node_name: true,
  command_id: true,
  stage_id: true,
  frame_id: true,
  loop_id: true,
  status: true,
  payload: true,
  payload_ref: true,
  meta: true,
} satisfies Record<Exclude<keyof EventEnvelope, 'checksum'>, true>).sort() as (keyof EventEnvelope)[];
const SEALED_KEYS = SEALED_MEMBERS.map((member, i) => `${i === 0 ? '{' : ','}${JSON.stringify(member)}:`);

/**
 * The canonical JSON of the envelope without its checksum. Every event is
 * sealed with it and verified again by each reader, so an envelope of
 * exactly its own members is written from the list above, with no sort of
 * its keys; anything else (a member missing or added) by `canonicalJson`,
 * which writes what the object holds, byte for byte as the list would.
 */
function sealedJson(event: Omit<EventEnvelope, 'checksum'>): string {
  const record = event as Record<string, unknown>;
  const members = Object.keys(record).length - (Object.hasOwn(record, 'checksum') ? 1 : 0);
  if (members !== SEALED_MEMBERS.length) return canonicalJsonOf(record);
  let out = '';
  for (let i = 0; i < SEALED_MEMBERS.length; i++) {
    const value = record[SEALED_MEMBERS[i]!];
    if (value === undefined) return canonicalJsonOf(record);
    out += SEALED_KEYS[i]! + (value === null ? 'null' : canonicalJson(value));
  }
  return `${out}}`;
}

function canonicalJsonOf(record: Record<string, unknown>): string {
  const { checksum: _ignored, ...rest } = record;
  return canonicalJson(rest);
}

/** sha256 of the canonical JSON of the envelope without its checksum. */
export function envelopeChecksum(event: Omit<EventEnvelope, 'checksum'>): string {
  return sha256Hex(sealedJson(event));
}

/** Whether an event as stored still matches its checksum: false when its row was changed behind the runtime (issue 25). */
export function isIntact(event: EventEnvelope): boolean {
  return envelopeChecksum(event) === event.checksum;
}

/** The sealed text of each event `sealEvent` made and no insert took yet (see `rowJson`). */
const sealedTexts = new WeakMap<object, string>();

/** Completes a new event with what the store assigns at append. */
export function sealEvent<T extends EventTypeName>(event: NewEvent<T>, streamVersion: number, ingestTime: Date): EventEnvelope<T> {
  const sealed = { ...event, stream_version: streamVersion, ingest_time: ingestTime.toISOString(), checksum: '' } as EventEnvelope<T>;
  const text = sealedJson(sealed);
  sealed.checksum = sha256Hex(text);
  sealedTexts.set(sealed, text);
  return sealed;
}

/**
 * A sealed event as one JSON object, what the store's insert reads a row
 * from: the canonical text its checksum was made of, with the checksum
 * added, when `sealEvent` made it (taken: an event is inserted once), else
 * written afresh. The row then holds exactly what was checksummed, and no
 * event is serialised twice on its way in.
 */
export function rowJson(event: EventEnvelope): string {
  const text = sealedTexts.get(event);
  if (text === undefined) return JSON.stringify(event);
  sealedTexts.delete(event);
  return `{"checksum":${JSON.stringify(event.checksum)},${text.slice(1)}`;
}
