import { nanos, NatsError, StorageType, type JetStreamManager, type NatsConnection, type StreamConfig } from 'nats';
import { EVENTS_SUBJECT_PREFIX } from './event-subjects';
import type { Logger } from 'pino';

/** The JetStream stream the event relay publishes every event to, and the projector shards consume (issue 10). */
export const EVENTS_STREAM = 'NOETL_EVENTS';

/**
 * The header of a message whose event was too large for a NATS message (the
 * server's max_payload): its payload is null, and a consumer reads the event
 * from the ledger instead (the projector does).
 */
export const PAYLOAD_ELIDED_HEADER = 'Noetl-Payload-Elided';

export interface EventStreamLimits {
  /** Events older than this leave the stream (the ledger keeps them). */
  maxAgeMs: number;
  /** The stream's size cap; the oldest events go first. */
  maxBytes: number;
  /**
   * How long JetStream remembers a message id: a relay that dies between
   * publish and mark and republishes within it adds no duplicate. A later
   * republish is a duplicate the projector's version check discards.
   */
  duplicateWindowMs: number;
  /**
   * Copies of the stream on a JetStream cluster (`NOETL_JETSTREAM_REPLICAS`):
   * 3 survives the loss of one node; 1 (the default) on a single server.
   */
  replicas?: number;
}

/**
 * The replica count of the streams and consumers made through `nc`:
 * `wanted` (NOETL_JETSTREAM_REPLICAS) on a cluster, 1 on a server that is
 * not clustered, which refuses more ("replicas > 1 not supported in
 * non-clustered mode") and would stop the relay and the projector for good.
 */
export function replicasOn(nc: NatsConnection, wanted: number): number {
  return wanted > 1 && !nc.info?.cluster ? 1 : wanted;
}

/** `replicasOn`, saying at warn level when the count is not the one wanted. */
export function streamReplicas(nc: NatsConnection, wanted: number, logger: Logger): number {
  const count = replicasOn(nc, wanted);
  if (count !== wanted)
    logger.warn(`NOETL_JETSTREAM_REPLICAS is ${wanted} but the NATS server is not clustered: streams and consumers get ${count} replica`);
  return count;
}

/** JetStream's error code for a stream that does not exist (JSStreamNotFoundErr); nats.js names none. */
const STREAM_NOT_FOUND = 10059;

/**
 * Creates the events stream (`EVENTS_STREAM` unless a test names its own),
 * or brings an existing one's limits and replica count to `limits` (a
 * cluster moves an R1 stream to R3 in place, keeping its messages).
 *
 * Only an answer that the stream does not exist makes one: a JetStream
 * without quorum, or electing leaders, answers 503 or not at all, and that
 * is thrown (the relay retries), never taken for an absent stream. A stream
 * already as configured is left alone: a relay takes the lead again after
 * every fault, and re-proposing a stream's assignment while its raft group
 * recovers is work the cluster need not do then.
 */
export async function ensureEventStream(jsm: JetStreamManager, limits: EventStreamLimits, name = EVENTS_STREAM): Promise<void> {
  const config = {
    name,
    subjects: [`${EVENTS_SUBJECT_PREFIX}.>`],
    storage: StorageType.File,
    max_age: nanos(limits.maxAgeMs),
    max_bytes: limits.maxBytes,
    duplicate_window: nanos(limits.duplicateWindowMs),
    num_replicas: limits.replicas ?? 1,
  };
  const existing = await jsm.streams.info(name).catch((error: unknown) => {
    if (error instanceof NatsError && error.api_error?.err_code === STREAM_NOT_FOUND) return undefined;
    throw error;
  });
  if (!existing) await jsm.streams.add(config);
  else if (!configured(existing.config, config)) await jsm.streams.update(name, config);
}

/** Whether every setting the runtime makes is as `wanted` says (JetStream fills in the rest). */
function configured(current: StreamConfig, wanted: Partial<StreamConfig>): boolean {
  return (Object.keys(wanted) as (keyof StreamConfig)[]).every((key) => JSON.stringify(current[key]) === JSON.stringify(wanted[key]));
}
