import { integer, type Env } from './env-values';

/**
 * `servers`: every URL of `NATS_URL` (a comma-separated list: the nodes of a
 * cluster), which every connection is given, so it reconnects to whichever
 * node is up. `replicas`: the replica count of every JetStream stream and
 * consumer the runtime creates (`NOETL_JETSTREAM_REPLICAS`, 1; 3 on a 3-node cluster).
 */
export interface NatsConfig {
  servers: string[];
  replicas: number;
}

/** The event relay to JetStream (runs with the scheduler role when NATS_URL is set) and the events stream's limits. */
export interface RelayConfig {
  /** Events published per round trip. */
  batch: number;
  /** The safety-net poll of the ledger's readers (the relay, the projector's feed without NATS); commits wake them at once (LISTEN/NOTIFY). */
  pollMs: number;
  stream: { maxAgeMs: number; maxBytes: number; duplicateWindowMs: number };
}

export function relay(env: Env): RelayConfig {
  return {
    batch: integer(env, 'NOETL_RELAY_BATCH', 500, 1, 10_000),
    pollMs: integer(env, 'NOETL_RELAY_POLL_MS', 5000, 10, 600_000),
    stream: {
      maxAgeMs: integer(env, 'NOETL_EVENTS_MAX_AGE_SECONDS', 7 * 86_400, 60, 365 * 86_400) * 1000,
      maxBytes: integer(env, 'NOETL_EVENTS_MAX_BYTES', 1024 ** 3, 1024 ** 2, Number.MAX_SAFE_INTEGER),
      duplicateWindowMs: integer(env, 'NOETL_EVENTS_DUPLICATE_WINDOW_SECONDS', 120, 1, 86_400) * 1000,
    },
  };
}
