import { ConfigError } from './config-error';
import { integer, oneOf, url, type Env } from './env-values';

/**
 * inlineLimitBytes: a payload over it leaves its event (DESIGN.md invariant 6) for the database's
 * `noetl.payload`, or, with `s3`, one of `s3.minBytes` or more for an S3-compatible bucket
 * (docs/operations.md "Payload storage"); offloadItems: a loop of more items keeps its collection
 * in the payload store, in parts; inlineLoopResults: a loop's rows from this index on commit their
 * results to the payload store, so a large loop's state holds a ref per frame.
 */
export interface PayloadsConfig {
  inlineLimitBytes: number;
  offloadItems: number;
  inlineLoopResults: number;
  s3?: S3PayloadConfig;
}

export function payloads(env: Env): PayloadsConfig {
  return {
    inlineLimitBytes: integer(env, 'NOETL_PAYLOAD_INLINE_LIMIT', 64 * 1024, 1024, 64 * 1024 * 1024),
    offloadItems: integer(env, 'NOETL_COLLECTION_OFFLOAD_ITEMS', 1000, 1, 100_000_000),
    inlineLoopResults: integer(env, 'NOETL_LOOP_INLINE_RESULTS', 10_000, 0, 100_000_000),
    ...s3Payloads(env),
  };
}

/** The object store tier (`NOETL_PAYLOAD_STORE=s3`); credentials come from the AWS SDK's default chain. */
export interface S3PayloadConfig {
  /** Absent: AWS S3 for `region`; set for MinIO, SeaweedFS, GCS interoperability. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Keys are `<prefix>/<tenant>/<organization>/<sha256>` (no prefix: `<tenant>/...`). */
  prefix: string;
  /** Path-style URLs (`<endpoint>/<bucket>/<key>`), as MinIO and most local servers want. */
  forcePathStyle: boolean;
  /** Payloads this large or larger go to the bucket; smaller ones stay in the database. */
  minBytes: number;
  /** Attempts of one request (the SDK's retry strategy) before a 5xx, throttling or connection error is given up on. */
  maxAttempts: number;
  /** Retention deletes an object no event references only once it is older than this. */
  gcGraceMs: number;
}

/** `NOETL_PAYLOAD_STORE=s3` and its settings (checked whichever store is selected); nothing, the database store, for `database` or unset. */
function s3Payloads(env: Env): { s3?: S3PayloadConfig } {
  const store = oneOf(env, 'NOETL_PAYLOAD_STORE', ['database', 's3'] as const, 'database');
  const bucket = env.NOETL_S3_BUCKET?.trim();
  const endpoint = url(env, 'NOETL_S3_ENDPOINT', ['http:', 'https:']);
  const prefix = (env.NOETL_S3_PREFIX ?? 'noetl').trim().replace(/^\/+|\/+$/g, '');
  if (!/^[\w./-]{0,200}$/.test(prefix)) throw new ConfigError(`NOETL_S3_PREFIX must be letters, digits and _ . / -, got "${prefix}"`);
  const settings = {
    region: env.NOETL_S3_REGION?.trim() || 'us-east-1',
    prefix,
    forcePathStyle: oneOf(env, 'NOETL_S3_FORCE_PATH_STYLE', ['true', 'false'] as const, 'false') === 'true',
    minBytes: integer(env, 'NOETL_S3_MIN_BYTES', 256 * 1024, 0, 1024 ** 3),
    maxAttempts: integer(env, 'NOETL_S3_MAX_ATTEMPTS', 10, 1, 100),
    gcGraceMs: integer(env, 'NOETL_S3_GC_GRACE_SECONDS', 86_400, 0, 365 * 86_400) * 1000,
  };
  if (store !== 's3') return {};
  if (!bucket) throw new ConfigError('NOETL_S3_BUCKET is required when NOETL_PAYLOAD_STORE=s3');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(`NOETL_S3_BUCKET must be a bucket name (3-63 lowercase letters, digits, . or -), got "${bucket}"`);
  return { s3: { ...(endpoint ? { endpoint } : {}), bucket, ...settings } };
}
