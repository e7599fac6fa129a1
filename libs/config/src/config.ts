import { homedir } from 'node:os';
import { join } from 'node:path';
import { bootstrapKeys, oidc, type AuthConfig } from './auth-config';
import { ConfigError } from './config-error';
import { postgresUrl, queryTimeout, runtimeRole, type DatabaseConfig } from './database-config';
import { integer, list, oneOf, url, urlList, type Env } from './env-values';
import { limits, type LimitsConfig } from './limits-config';
import { relay, type NatsConfig, type RelayConfig } from './nats-config';
import { payloads, type PayloadsConfig } from './payloads-config';
import { projectorShard, type ProjectorConfig } from './projector-config';
import { Secret } from './secret';
import type { ToolsConfig } from './tools-config';
import { tracing, type TracingConfig } from './tracing-config';
import { workerPool, type WorkerConfig } from './worker-config';

export const ROLES = ['api', 'scheduler', 'worker', 'projector'] as const;
export type Role = (typeof ROLES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `auto`: lines for a person when they go to a terminal, JSON otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The environment, validated once at boot. Nothing else reads `process.env`. */
export interface NoetlConfig {
  database: DatabaseConfig;
  /** Absent: no BullMQ lane; the durable timer sweep alone fires retries. */
  redis?: { url: Secret };
  /** Absent: the in-process transport. */
  nats?: NatsConfig;
  http: { port: number };
  roles: Role[];
  home: string;
  encryptionKey?: Secret;
  tenancy: { tenantId: string; organizationId: string };
  payloads: PayloadsConfig;
  log: { level: LogLevel; format: LogFormat };
  worker: WorkerConfig;
  /** How often the scheduler sweeps due timers, expired leases and unclaimed commands. */
  scheduler: { sweepMs: number };
  tools: ToolsConfig;
  /** The public API's rate limit per client (0: none). */
  rateLimit: { requests: number; windowMs: number };
  limits: LimitsConfig;
  /**
   * Template renders off the event loop (issue 25 item 7): a render runs
   * inline for at most `inlineMs` milliseconds and `inlineWork` work units
   * (template-limits.ts); one that needs more is done again, with the full
   * budget, by one of `threads` render threads.
   */
  templates: { inlineMs: number; inlineWork: number; threads: number };
  projector: ProjectorConfig;
  relay: RelayConfig;
  /** How long SIGTERM lets in-flight work finish before the process stops anyway. */
  shutdown: { graceMs: number };
  /** OpenTelemetry traces over OTLP/HTTP (the OTEL_* variables of the OpenTelemetry spec); absent: off. */
  tracing?: TracingConfig;
  /**
   * The API a separate worker process (roles without `api`) and the CLI's
   * client commands talk to. Absent: the worker uses the in-process control plane.
   */
  server?: { url: string };
  auth: AuthConfig;
  /** The key this process presents to the API: a separate worker's, or the CLI's (`NOETL_API_KEY`). */
  client: { apiKey?: Secret };
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
    payloads: payloads(env),
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
    limits: limits(env),
    templates: {
      inlineMs: integer(env, 'NOETL_TEMPLATE_INLINE_MS', 10, 1, 60_000),
      inlineWork: integer(env, 'NOETL_TEMPLATE_INLINE_WORK', 2_000_000, 1000, 100_000_000),
      threads: integer(env, 'NOETL_TEMPLATE_THREADS', 2, 1, 64),
    },
    projector: projectorShard(env),
    relay: relay(env),
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

function roles(env: Env): Role[] {
  const raw = env.NOETL_ROLES?.trim();
  if (!raw || raw === 'all') return [...ROLES];
  const names = raw
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
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
