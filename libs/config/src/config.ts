import { homedir } from 'node:os';
import { join } from 'node:path';
import { DatabaseUrlError, parseDatabaseUrl, type DatabaseUrl } from './database-url';

export const ROLES = ['api', 'scheduler', 'worker', 'projector'] as const;
export type Role = (typeof ROLES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `auto`: lines for a person when they go to a terminal, JSON otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** A value that must never be printed: `toString`/`toJSON` mask it. */
export class Secret {
  constructor(private readonly value: string) {}
  reveal(): string {
    return this.value;
  }
  toString(): string {
    return '***';
  }
  toJSON(): string {
    return '***';
  }
}

/** An OIDC issuer whose JWT bearer tokens the API accepts beside API keys. */
export interface OidcConfig {
  /** Where the issuer publishes its signing keys (JWKS). */
  jwksUrl: string;
  issuer?: string;
  audience?: string;
  /** The web UI's (public, PKCE) client at the issuer: with `issuer`, the sign-in page offers the identity provider. */
  clientId?: string;
  /** The claims that carry the caller's tenant, organization and role. */
  tenantClaim: string;
  organizationClaim: string;
  roleClaim: string;
}

/** The environment, validated once at boot. Nothing else reads `process.env`. */
export interface NoetlConfig {
  /**
   * Absent url: the CLI starts an embedded PostgreSQL under `home`.
   * `sessions`: what every session of the runtime's pool is bounded by
   * (README "Configuration"): a transaction left idle is ended by the server
   * (a stopped process then holds no lock for long), a lock waited for
   * longer fails the statement instead of stalling it, and a statement not
   * answered within `queryTimeoutMs` (0: no limit) fails on the client's side
   * and its connection is closed (a partition that swallows packets).
   */
  database: {
    url?: Secret;
    sessions: { idleInTransactionMs: number; lockTimeoutMs: number; queryTimeoutMs: number };
    /**
     * The role the runtime's pool works as (`NOETL_DB_RUNTIME_ROLE`, default `noetl_app`): a login
     * that may become it (a superuser, the embedded server's) connects with `role` set to it, so the
     * runtime holds DML on `noetl` and nothing more. Absent (`none`): the login's own role.
     */
    runtimeRole?: string;
  };
  /** Absent: no BullMQ lane; the durable timer sweep alone fires retries. */
  redis?: { url: Secret };
  /**
   * Absent: the in-process transport. `servers`: every URL of `NATS_URL` (a
   * comma-separated list: the nodes of a cluster), which every connection is
   * given, so it reconnects to whichever node is up. `replicas`: the replica
   * count of every JetStream stream and consumer the runtime creates
   * (`NOETL_JETSTREAM_REPLICAS`, 1; 3 on a 3-node cluster).
   */
  nats?: { servers: string[]; replicas: number };
  http: { port: number };
  roles: Role[];
  home: string;
  encryptionKey?: Secret;
  tenancy: { tenantId: string; organizationId: string };
  /**
   * inlineLimitBytes: a payload over it leaves its event (DESIGN.md invariant 6) for the database's
   * `noetl.payload`, or, with `s3`, one of `s3.minBytes` or more for an S3-compatible bucket
   * (docs/operations.md "Payload storage"); offloadItems: a loop of more items keeps its collection
   * in the payload store, in parts; inlineLoopResults: a loop's rows from this index on commit their
   * results to the payload store, so a large loop's state holds a ref per frame.
   */
  payloads: { inlineLimitBytes: number; offloadItems: number; inlineLoopResults: number; s3?: S3PayloadConfig };
  log: { level: LogLevel; format: LogFormat };
  worker: {
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
  };
  /** How often the scheduler sweeps due timers, expired leases and unclaimed commands. */
  scheduler: { sweepMs: number };
  /** What user code runs inside (README "Isolation"). */
  tools: {
    /**
     * `refuse` (default): postgres steps cannot reach the runtime's own database, however it is
     * spelled, nor its cluster as a role with power over it (a superuser, ...). `database`: only the
     * database itself is refused (a laptop whose playbooks log in as the local superuser). `allow`: neither.
     */
    ledgerAccess: 'refuse' | 'database' | 'allow';
    javascript: {
      /** Sandbox threads; absent: the CPU count, at most 4. */
      threads?: number;
      memoryMb: number;
      /** Ceiling of any step's `timeout`. */
      maxTimeoutSeconds: number;
    };
    python: {
      /** Who python steps run as when the worker is root: a name, uid or uid:gid. */
      user: string;
      /**
       * `refuse` (default): a worker that opens the ledger probes its cluster at start, and refuses
       * python steps when it accepts a login without a password from this host (pg_hba `trust`).
       * `allow`: no probe (unsafe, for setups whose python steps are trusted).
       */
      ledgerAccess: 'refuse' | 'allow';
      /** Address space (RLIMIT_AS) of a step's processes. */
      memoryMb: number;
      /** The largest file a step's processes may write (RLIMIT_FSIZE): what one step can put on the worker's disk. */
      fileMb: number;
      /** Ceiling of any step's `timeout`. */
      maxTimeoutSeconds: number;
    };
    /** Ceiling of any http step's `timeout`. */
    http: { maxTimeoutSeconds: number };
  };
  /** The public API's rate limit per client (0: none). */
  rateLimit: { requests: number; windowMs: number };
  /** How much work one playbook may set off (issue 15 defect 8): a step that would pass a limit fails, saying which. */
  limits: {
    /** Sub-playbook nesting: a child this deep below its root execution is refused (a playbook calling itself). */
    playbookDepth: number;
    /** Child executions one execution may start, over its whole life. */
    childExecutions: number;
    /** Items one loop may iterate. */
    loopItems: number;
    /** Items one `range()` of a template may produce (a loop over `range(n)` is capped by it before NOETL_MAX_LOOP_ITEMS). */
    rangeItems: number;
    /**
     * Bytes of a request body a user sends with an execution's, a signal's or a schedule's
     * payload: one larger is refused (413) before it is parsed, and nothing is written.
     */
    inputBytes: number;
  };
  /**
   * Template renders off the event loop (issue 25 item 7): a render runs
   * inline for at most `inlineMs` milliseconds and `inlineWork` work units
   * (template-limits.ts); one that needs more is done again, with the full
   * budget, by one of `threads` render threads.
   */
  templates: { inlineMs: number; inlineWork: number; threads: number };
  /**
   * This projector's shard (seed 002 s7.3): `NOETL_SHARD_ID` is a StatefulSet
   * pod name such as `noetl-projector-2` (or a bare index), `NOETL_SHARD_COUNT`
   * the number of shards; the index must be below the count.
   */
  projector: { shardIndex: number; shardCount: number };
  /** The event relay to JetStream (runs with the scheduler role when NATS_URL is set) and the events stream's limits. */
  relay: {
    /** Events published per round trip. */
    batch: number;
    /** The safety-net poll of the ledger's readers (the relay, the projector's feed without NATS); commits wake them at once (LISTEN/NOTIFY). */
    pollMs: number;
    stream: { maxAgeMs: number; maxBytes: number; duplicateWindowMs: number };
  };
  /** How long SIGTERM lets in-flight work finish before the process stops anyway. */
  shutdown: { graceMs: number };
  /** OpenTelemetry traces over OTLP/HTTP (the OTEL_* variables of the OpenTelemetry spec); absent: off. */
  tracing?: TracingConfig;
  /**
   * The API a separate worker process (roles without `api`) and the CLI's
   * client commands talk to. Absent: the worker uses the in-process control plane.
   */
  server?: { url: string };
  /**
   * Who may call the API (issue 11). `enabled` is false only when
   * NOETL_AUTH=off says so; `oidc` adds JWT bearer tokens to API keys;
   * `metrics: 'key'` asks any valid key of /metrics.
   */
  auth: { enabled: boolean; oidc?: OidcConfig; metrics: 'open' | 'key'; bootstrapKeys: BootstrapKeys };
  /** The key this process presents to the API: a separate worker's, or the CLI's (`NOETL_API_KEY`). */
  client: { apiKey?: Secret };
}

/**
 * Keys an operator chose for a deployment (NOETL_BOOTSTRAP_ADMIN_KEY,
 * NOETL_BOOTSTRAP_WORKER_KEY, from its secret store): the api stores them,
 * hashed, at every start (as `noetl keys bootstrap` does), so no key has to
 * be written to a home directory.
 */
export interface BootstrapKeys {
  admin?: Secret;
  worker?: Secret;
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

/** Where and how spans are exported (README "Observability"). */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL, e.g. `http://collector:4318/v1/traces`. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** `service.name` of this process's spans; absent: `noetl-<roles>`. */
  serviceName?: string;
}

export class ConfigError extends Error {
  readonly code = 'config_invalid';
}

type Env = Record<string, string | undefined>;

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.map((p) => p.replace(':', '://')).join(' or ')}, got ${parsed.protocol}//`);
  }
  return raw;
}

/**
 * A PostgreSQL URL, with one host or several (`h1:5432,h2:5433`, libpq's form)
 * and `target_session_attrs`: parsed by `parseDatabaseUrl`, each host's URL
 * checked as a URL.
 */
function postgresUrl(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let parsed: DatabaseUrl;
  try {
    parsed = parseDatabaseUrl(raw);
  } catch (error) {
    if (!(error instanceof DatabaseUrlError)) throw error;
    // A URL of another scheme gets url()'s message, which names the schemes allowed.
    if (!/^postgres(?:ql)?:/i.test(raw)) return url(env, name, ['postgres:', 'postgresql:']);
    throw new ConfigError(`${name} ${error.message}`);
  }
  for (const host of parsed.hosts) {
    try {
      new URL(parsed.forHost(host));
    } catch {
      throw new ConfigError(`${name} is not a valid URL`);
    }
  }
  return raw;
}

/**
 * A comma-separated list of URLs (the nodes of a cluster), each checked as
 * `url` checks one; duplicates dropped, order kept; undefined when unset or empty.
 */
function urlList(env: Env, name: string, protocols: string[]): string[] | undefined {
  const items = env[name]
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (!items || items.length === 0) return undefined;
  const checked = items.map((item, i) => {
    const label = items.length > 1 ? `${name} (URL ${i + 1} of ${items.length})` : name;
    return url({ [label]: item }, label, protocols) ?? item;
  });
  return [...new Set(checked)];
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function roles(env: Env): Role[] {
  const raw = env.NOETL_ROLES?.trim();
  if (!raw || raw === 'all') return [...ROLES];
  const names = raw.split(',').map((r) => r.trim()).filter(Boolean);
  const unknown = names.filter((r) => !(ROLES as readonly string[]).includes(r));
  if (unknown.length) throw new ConfigError(`NOETL_ROLES has unknown role(s) ${unknown.join(', ')}; use ${ROLES.join(', ')} or all`);
  return [...new Set(names)] as Role[];
}

/** A 32-byte AES key as 64 hex characters or base64. */
function encryptionKey(env: Env): Secret | undefined {
  const raw = env.NOETL_ENCRYPTION_KEY?.trim();
  if (!raw) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (bytes.length !== 32) throw new ConfigError('NOETL_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  return new Secret(bytes.toString('hex'));
}

/** A tenant or organization id (one token of a NATS subject); default `default`. */
function scopeId(env: Env, name: string): string {
  const raw = env[name]?.trim();
  if (!raw) return 'default';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw)) throw new ConfigError(`${name} must be 1-64 letters, digits, _ or -, got "${raw}"`);
  return raw;
}

/** `NOETL_DB_RUNTIME_ROLE`: a plain role name (it travels in the connection's startup options unquoted), or `none`. */
function runtimeRole(env: Env): { runtimeRole?: string } {
  const raw = env.NOETL_DB_RUNTIME_ROLE?.trim() || 'noetl_app';
  if (raw === 'none') return {};
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) {
    throw new ConfigError(`NOETL_DB_RUNTIME_ROLE must be a lower-case role name (letters, digits, _) or none, got "${raw}"`);
  }
  return { runtimeRole: raw };
}

/** `NOETL_DB_QUERY_TIMEOUT_MS`: 0 (no limit), or at least 1 s, so that no statement of the runtime's is cut short by a typo. */
function queryTimeout(env: Env): number {
  const ms = integer(env, 'NOETL_DB_QUERY_TIMEOUT_MS', 60_000, 0, 3_600_000);
  if (ms > 0 && ms < 1_000) throw new ConfigError(`NOETL_DB_QUERY_TIMEOUT_MS must be 0 (no limit) or between 1000 and 3600000, got ${ms}`);
  return ms;
}

/** A claim name: letters, digits and `_ . : / -`. */
function claimName(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^[\w.:/-]{1,100}$/.test(raw)) throw new ConfigError(`${name} must be a claim name (letters, digits, _ . : / -), got "${raw}"`);
  return raw;
}

function oidc(env: Env): OidcConfig | undefined {
  const jwksUrl = url(env, 'NOETL_OIDC_JWKS_URL', ['https:', 'http:']);
  const issuer = env.NOETL_OIDC_ISSUER?.trim();
  const audience = env.NOETL_OIDC_AUDIENCE?.trim();
  const clientId = env.NOETL_OIDC_CLIENT_ID?.trim();
  const claims = {
    tenantClaim: claimName(env, 'NOETL_OIDC_TENANT_CLAIM', 'noetl_tenant'),
    organizationClaim: claimName(env, 'NOETL_OIDC_ORGANIZATION_CLAIM', 'noetl_organization'),
    roleClaim: claimName(env, 'NOETL_OIDC_ROLE_CLAIM', 'noetl_role'),
  };
  if (!jwksUrl) return undefined;
  return { jwksUrl, ...(issuer ? { issuer } : {}), ...(audience ? { audience } : {}), ...(clientId ? { clientId } : {}), ...claims };
}

/** `noetl-projector-2` or `2` -> 2; validated against the shard count. */
function projectorShard(env: Env): NoetlConfig['projector'] {
  const shardCount = integer(env, 'NOETL_SHARD_COUNT', 1, 1, 1024);
  const raw = env.NOETL_SHARD_ID?.trim();
  if (!raw) return { shardIndex: 0, shardCount };
  const match = /(?:^|-)(\d+)$/.exec(raw);
  if (!match) throw new ConfigError(`NOETL_SHARD_ID must be a shard index or a pod name ending in one (e.g. noetl-projector-2), got "${raw}"`);
  const shardIndex = Number(match[1]);
  if (shardIndex >= shardCount) throw new ConfigError(`NOETL_SHARD_ID ${raw} names shard ${shardIndex}, outside NOETL_SHARD_COUNT ${shardCount}`);
  return { shardIndex, shardCount };
}

/** A comma-separated list of names; undefined when unset or empty. */
function list(env: Env, name: string): string[] | undefined {
  const names = env[name]
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return names && names.length > 0 ? [...new Set(names)] : undefined;
}

/** Every environment variable `loadConfig` reads (manifests and compose files are checked against it). */
export const CONFIG_ENV_NAMES = [
  'DATABASE_URL',
  'REDIS_URL',
  'NATS_URL',
  'NOETL_JETSTREAM_REPLICAS',
  'PORT',
  'NOETL_ROLES',
  'NOETL_HOME',
  'NOETL_ENCRYPTION_KEY',
  'NOETL_TENANT_ID',
  'NOETL_ORGANIZATION_ID',
  'NOETL_PAYLOAD_INLINE_LIMIT',
  'NOETL_COLLECTION_OFFLOAD_ITEMS',
  'NOETL_LOOP_INLINE_RESULTS',
  'NOETL_PAYLOAD_STORE',
  'NOETL_S3_ENDPOINT',
  'NOETL_S3_BUCKET',
  'NOETL_S3_REGION',
  'NOETL_S3_PREFIX',
  'NOETL_S3_FORCE_PATH_STYLE',
  'NOETL_S3_MIN_BYTES',
  'NOETL_S3_MAX_ATTEMPTS',
  'NOETL_S3_GC_GRACE_SECONDS',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'NOETL_PYTHON',
  'NOETL_WORKER_CONCURRENCY',
  'NOETL_LEASE_SECONDS',
  'NOETL_WORKER_TOOLS',
  'NOETL_WORKER_POOL',
  'NOETL_SWEEP_MS',
  'NOETL_SHARD_ID',
  'NOETL_SHARD_COUNT',
  'NOETL_RELAY_BATCH',
  'NOETL_RELAY_POLL_MS',
  'NOETL_EVENTS_MAX_AGE_SECONDS',
  'NOETL_EVENTS_MAX_BYTES',
  'NOETL_EVENTS_DUPLICATE_WINDOW_SECONDS',
  'NOETL_SHUTDOWN_GRACE_SECONDS',
  'NOETL_STREAM_MAX_PENDING_CHUNKS',
  'NOETL_SERVER_URL',
  'NOETL_TOOLS_LEDGER_ACCESS',
  'NOETL_JS_THREADS',
  'NOETL_TEMPLATE_INLINE_MS',
  'NOETL_TEMPLATE_INLINE_WORK',
  'NOETL_TEMPLATE_THREADS',
  'NOETL_JS_MEMORY_MB',
  'NOETL_JS_MAX_TIMEOUT_SECONDS',
  'NOETL_PYTHON_USER',
  'NOETL_PYTHON_LEDGER_ACCESS',
  'NOETL_PYTHON_MEMORY_MB',
  'NOETL_PYTHON_FILE_MB',
  'NOETL_AUTH',
  'NOETL_API_KEY',
  'NOETL_BOOTSTRAP_ADMIN_KEY',
  'NOETL_BOOTSTRAP_WORKER_KEY',
  'NOETL_METRICS_AUTH',
  'NOETL_OIDC_JWKS_URL',
  'NOETL_OIDC_ISSUER',
  'NOETL_OIDC_AUDIENCE',
  'NOETL_OIDC_CLIENT_ID',
  'NOETL_OIDC_TENANT_CLAIM',
  'NOETL_OIDC_ORGANIZATION_CLAIM',
  'NOETL_OIDC_ROLE_CLAIM',
  'NOETL_DB_IDLE_IN_TRANSACTION_MS',
  'NOETL_DB_LOCK_TIMEOUT_MS',
  'NOETL_DB_QUERY_TIMEOUT_MS',
  'NOETL_DB_RUNTIME_ROLE',
  'NOETL_HTTP_MAX_TIMEOUT_SECONDS',
  'NOETL_PYTHON_MAX_TIMEOUT_SECONDS',
  'NOETL_MAX_PLAYBOOK_DEPTH',
  'NOETL_MAX_CHILD_EXECUTIONS',
  'NOETL_MAX_LOOP_ITEMS',
  'NOETL_MAX_INPUT_BYTES',
  'NOETL_MAX_RANGE_ITEMS',
  'NOETL_RATE_LIMIT',
  'NOETL_RATE_LIMIT_WINDOW_SECONDS',
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_SERVICE_NAME',
] as const;

/**
 * `NOETL_WORKER_POOL`: it names NATS subjects and Kubernetes objects, so the
 * rule of a playbook's `pool` (POOL_NAME in libs/dsl) holds for it too.
 */
function workerPool(env: Env): string | undefined {
  const pool = env.NOETL_WORKER_POOL?.trim();
  if (!pool) return undefined;
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(pool)) {
    throw new ConfigError(`NOETL_WORKER_POOL must be 1-63 of A-Z a-z 0-9 _ - (not starting with _ or -), got "${pool}"`);
  }
  return pool;
}

export function loadConfig(env: Env): NoetlConfig {
  const databaseUrl = postgresUrl(env, 'DATABASE_URL');
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const natsServers = urlList(env, 'NATS_URL', ['nats:', 'tls:']);
  const jetstreamReplicas = integer(env, 'NOETL_JETSTREAM_REPLICAS', 1, 1, 5);
  const python = oneOf(env, 'NOETL_PYTHON', ['on', 'off'] as const, 'on');
  const serverUrl = url(env, 'NOETL_SERVER_URL', ['http:', 'https:']);
  const tools = list(env, 'NOETL_WORKER_TOOLS');
  const pool = workerPool(env);
  const jsThreads = env.NOETL_JS_THREADS?.trim() ? integer(env, 'NOETL_JS_THREADS', 1, 1, 256) : undefined;
  const authIssuer = oidc(env);
  const apiKey = env.NOETL_API_KEY?.trim();
  return {
    database: {
      url: databaseUrl ? new Secret(databaseUrl) : undefined,
      sessions: {
        idleInTransactionMs: integer(env, 'NOETL_DB_IDLE_IN_TRANSACTION_MS', 10_000, 100, 3_600_000),
        lockTimeoutMs: integer(env, 'NOETL_DB_LOCK_TIMEOUT_MS', 5_000, 100, 3_600_000),
        queryTimeoutMs: queryTimeout(env),
      },
      ...runtimeRole(env),
    },
    redis: redisUrl ? { url: new Secret(redisUrl) } : undefined,
    nats: natsServers ? { servers: natsServers, replicas: jetstreamReplicas } : undefined,
    http: { port: integer(env, 'PORT', 8082, 0, 65535) },
    roles: roles(env),
    home: env.NOETL_HOME?.trim() || join(homedir(), '.noetl'),
    encryptionKey: encryptionKey(env),
    tenancy: { tenantId: scopeId(env, 'NOETL_TENANT_ID'), organizationId: scopeId(env, 'NOETL_ORGANIZATION_ID') },
    payloads: {
      inlineLimitBytes: integer(env, 'NOETL_PAYLOAD_INLINE_LIMIT', 64 * 1024, 1024, 64 * 1024 * 1024),
      offloadItems: integer(env, 'NOETL_COLLECTION_OFFLOAD_ITEMS', 1000, 1, 100_000_000),
      inlineLoopResults: integer(env, 'NOETL_LOOP_INLINE_RESULTS', 10_000, 0, 100_000_000),
      ...s3Payloads(env),
    },
    log: { level: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'), format: oneOf(env, 'LOG_FORMAT', LOG_FORMATS, 'auto') },
    worker: {
      python: python === 'on',
      concurrency: integer(env, 'NOETL_WORKER_CONCURRENCY', 8, 1, 1024),
      leaseMs: integer(env, 'NOETL_LEASE_SECONDS', 30, 1, 86_400) * 1000,
      streamMaxPendingChunks: integer(env, 'NOETL_STREAM_MAX_PENDING_CHUNKS', 8, 1, 100_000),
      ...(tools ? { tools } : {}),
      ...(pool ? { pool } : {}),
    },
    scheduler: { sweepMs: integer(env, 'NOETL_SWEEP_MS', 1000, 10, 600_000) },
    tools: {
      ledgerAccess: oneOf(env, 'NOETL_TOOLS_LEDGER_ACCESS', ['refuse', 'database', 'allow'] as const, 'refuse'),
      javascript: {
        ...(jsThreads !== undefined ? { threads: jsThreads } : {}),
        memoryMb: integer(env, 'NOETL_JS_MEMORY_MB', 64, 8, 4096),
        maxTimeoutSeconds: integer(env, 'NOETL_JS_MAX_TIMEOUT_SECONDS', 60, 1, 86_400),
      },
      python: {
        user: env.NOETL_PYTHON_USER?.trim() || 'nobody',
        ledgerAccess: oneOf(env, 'NOETL_PYTHON_LEDGER_ACCESS', ['refuse', 'allow'] as const, 'refuse'),
        memoryMb: integer(env, 'NOETL_PYTHON_MEMORY_MB', 1024, 64, 1_048_576),
        fileMb: integer(env, 'NOETL_PYTHON_FILE_MB', 256, 1, 1_048_576),
        maxTimeoutSeconds: integer(env, 'NOETL_PYTHON_MAX_TIMEOUT_SECONDS', 3600, 1, 7 * 86_400),
      },
      http: { maxTimeoutSeconds: integer(env, 'NOETL_HTTP_MAX_TIMEOUT_SECONDS', 300, 1, 86_400) },
    },
    rateLimit: {
      requests: integer(env, 'NOETL_RATE_LIMIT', 6000, 0, 10_000_000),
      windowMs: integer(env, 'NOETL_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400) * 1000,
    },
    limits: {
      playbookDepth: integer(env, 'NOETL_MAX_PLAYBOOK_DEPTH', 32, 1, 1000),
      childExecutions: integer(env, 'NOETL_MAX_CHILD_EXECUTIONS', 10_000, 1, 10_000_000),
      loopItems: integer(env, 'NOETL_MAX_LOOP_ITEMS', 1_000_000, 1, 100_000_000),
      inputBytes: integer(env, 'NOETL_MAX_INPUT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      rangeItems: integer(env, 'NOETL_MAX_RANGE_ITEMS', 100_000, 1, 100_000_000),
    },
    templates: {
      inlineMs: integer(env, 'NOETL_TEMPLATE_INLINE_MS', 10, 1, 60_000),
      inlineWork: integer(env, 'NOETL_TEMPLATE_INLINE_WORK', 2_000_000, 1000, 100_000_000),
      threads: integer(env, 'NOETL_TEMPLATE_THREADS', 2, 1, 64),
    },
    projector: projectorShard(env),
    relay: {
      batch: integer(env, 'NOETL_RELAY_BATCH', 500, 1, 10_000),
      pollMs: integer(env, 'NOETL_RELAY_POLL_MS', 5000, 10, 600_000),
      stream: {
        maxAgeMs: integer(env, 'NOETL_EVENTS_MAX_AGE_SECONDS', 7 * 86_400, 60, 365 * 86_400) * 1000,
        maxBytes: integer(env, 'NOETL_EVENTS_MAX_BYTES', 1024 ** 3, 1024 ** 2, Number.MAX_SAFE_INTEGER),
        duplicateWindowMs: integer(env, 'NOETL_EVENTS_DUPLICATE_WINDOW_SECONDS', 120, 1, 86_400) * 1000,
      },
    },
    shutdown: { graceMs: integer(env, 'NOETL_SHUTDOWN_GRACE_SECONDS', 30, 0, 3600) * 1000 },
    tracing: tracing(env),
    server: serverUrl ? { url: serverUrl.replace(/\/+$/, '') } : undefined,
    auth: {
      enabled: oneOf(env, 'NOETL_AUTH', ['on', 'off'] as const, 'on') === 'on',
      ...(authIssuer ? { oidc: authIssuer } : {}),
      metrics: oneOf(env, 'NOETL_METRICS_AUTH', ['open', 'key'] as const, 'open'),
      bootstrapKeys: bootstrapKeys(env),
    },
    client: apiKey ? { apiKey: new Secret(apiKey) } : {},
  };
}

/**
 * Traces are off unless configured, as the OpenTelemetry spec's variables
 * say: OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint set (and not
 * OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true). The endpoint and
 * protocol follow the spec: a signal-specific URL is used as is, the
 * general one gets `/v1/traces`; `http/protobuf` by default.
 */
function tracing(env: Env): TracingConfig | undefined {
  const exporter = oneOf(env, 'OTEL_TRACES_EXPORTER', ['otlp', 'none'] as const, 'none');
  const tracesUrl = url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  const baseUrl = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  const disabled = oneOf(env, 'OTEL_SDK_DISABLED', ['true', 'false'] as const, 'false') === 'true';
  const protocols = ['http/protobuf', 'http/json'] as const;
  const protocol = oneOf(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', protocols, oneOf(env, 'OTEL_EXPORTER_OTLP_PROTOCOL', protocols, 'http/protobuf'));
  const serviceName = env.OTEL_SERVICE_NAME?.trim();
  const configured = env.OTEL_TRACES_EXPORTER?.trim() ? exporter === 'otlp' : Boolean(tracesUrl ?? baseUrl);
  if (disabled || !configured) return undefined;
  return {
    url: tracesUrl ?? `${(baseUrl ?? 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`,
    protocol,
    ...(serviceName ? { serviceName } : {}),
  };
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
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError(`NOETL_S3_BUCKET must be a bucket name (3-63 lowercase letters, digits, . or -), got "${bucket}"`);
  return { s3: { ...(endpoint ? { endpoint } : {}), bucket, ...settings } };
}

function bootstrapKeys(env: Env): BootstrapKeys {
  const admin = env.NOETL_BOOTSTRAP_ADMIN_KEY?.trim();
  const worker = env.NOETL_BOOTSTRAP_WORKER_KEY?.trim();
  return { ...(admin ? { admin: new Secret(admin) } : {}), ...(worker ? { worker: new Secret(worker) } : {}) };
}
