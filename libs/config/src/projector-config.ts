import { ConfigError } from './config-error';
import { integer, type Env } from './env-values';

/**
 * This projector's shard (seed 002 s7.3): `NOETL_SHARD_ID` is a StatefulSet
 * pod name such as `noetl-projector-2` (or a bare index), `NOETL_SHARD_COUNT`
 * the number of shards; the index must be below the count.
 */
export interface ProjectorConfig {
  shardIndex: number;
  shardCount: number;
}

/** `noetl-projector-2` or `2` -> 2; validated against the shard count. */
export function projectorShard(env: Env): ProjectorConfig {
  const shardCount = integer(env, 'NOETL_SHARD_COUNT', 1, 1, 1024);
  const raw = env.NOETL_SHARD_ID?.trim();
  if (!raw) return { shardIndex: 0, shardCount };
  const match = /(?:^|-)(\d+)$/.exec(raw);
  if (!match)
    throw new ConfigError(`NOETL_SHARD_ID must be a shard index or a pod name ending in one (e.g. noetl-projector-2), got "${raw}"`);
  const shardIndex = Number(match[1]);
  if (shardIndex >= shardCount)
    throw new ConfigError(`NOETL_SHARD_ID ${raw} names shard ${shardIndex}, outside NOETL_SHARD_COUNT ${shardCount}`);
  return { shardIndex, shardCount };
}
