import { ConfigError } from './config-error';
import type { Env } from './env-values';

export interface WorkerConfig {
  python: boolean;
  concurrency: number;
  /** Lease of a claimed command; heartbeats renew it at a third of it. */
  leaseMs: number;
  /**
   * Backpressure of a streamed result (`NOETL_STREAM_MAX_PENDING_CHUNKS`):
   * the worker reads no further chunk while this many are reported and not
   * yet consumed.
   */
  streamMaxPendingChunks: number;
  /** Tool kinds this worker runs (`NOETL_WORKER_TOOLS`); absent: every kind. */
  tools?: string[];
  /** The worker pool it serves (`NOETL_WORKER_POOL`); absent: the default pool. */
  pool?: string;
}

/**
 * `NOETL_WORKER_POOL`: it names NATS subjects and Kubernetes objects, so the
 * rule of a playbook's `pool` (POOL_NAME in libs/dsl) holds for it too.
 */
export function workerPool(env: Env): string | undefined {
  const pool = env.NOETL_WORKER_POOL?.trim();
  if (!pool) return undefined;
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(pool)) {
    throw new ConfigError(`NOETL_WORKER_POOL must be 1-63 of A-Z a-z 0-9 _ - (not starting with _ or -), got "${pool}"`);
  }
  return pool;
}
