import { loadConfig } from './config';
import { CONFIG_ENV_NAMES } from './config-env-names';
import { ConfigError } from './config-error';

describe('loadConfig', () => {
  it('selects the embedded adapters when no service URL is set', () => {
    const config = loadConfig({ NOETL_HOME: '/tmp/x' });
    expect(config.database.url).toBeUndefined();
    expect(config.redis).toBeUndefined();
    expect(config.nats).toBeUndefined();
    expect(config.roles).toEqual(['api', 'scheduler', 'worker', 'projector']);
    expect(config.home).toBe('/tmp/x');
    expect(config.log).toEqual({ level: 'info', format: 'auto' });
    expect(config.payloads.inlineLimitBytes).toBe(65536);
  });

  it('reads every setting into the typed object', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u:p@db:5432/noetl',
      REDIS_URL: 'redis://r:6379',
      NATS_URL: 'nats://n:4222',
      PORT: '9000',
      NOETL_ROLES: 'api, worker',
      NOETL_ENCRYPTION_KEY: 'ab'.repeat(32),
      NOETL_TENANT_ID: 't1',
      NOETL_ORGANIZATION_ID: 'o1',
      NOETL_PAYLOAD_INLINE_LIMIT: '2048',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      NOETL_PYTHON: 'off',
    });
    expect(config.database.url?.reveal()).toBe('postgres://u:p@db:5432/noetl');
    expect(config.redis?.url.reveal()).toBe('redis://r:6379');
    expect(config.nats).toEqual({ servers: ['nats://n:4222'], replicas: 1 });
    expect(config.http.port).toBe(9000);
    expect(config.roles).toEqual(['api', 'worker']);
    expect(config.tenancy).toEqual({ tenantId: 't1', organizationId: 'o1' });
    expect(config.payloads.inlineLimitBytes).toBe(2048);
    expect(config.log).toEqual({ level: 'debug', format: 'json' });
    expect(config.worker.python).toBe(false);
  });

  it('reads NATS_URL as a list of cluster nodes, each a nats:// or tls:// URL, and the JetStream replica count', () => {
    expect(loadConfig({ NATS_URL: ' nats://a:4222, nats://b:4222 ,tls://c:4222,nats://a:4222,' }).nats).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222', 'tls://c:4222'],
      replicas: 1,
    });
    expect(loadConfig({ NATS_URL: 'nats://a:4222,nats://b:4222,nats://c:4222', NOETL_JETSTREAM_REPLICAS: '3' }).nats?.replicas).toBe(3);
    expect(loadConfig({ NATS_URL: ' , ' }).nats).toBeUndefined();
    expect(() => loadConfig({ NATS_URL: 'nats://a:4222,http://b:4222' })).toThrow(
      'NATS_URL (URL 2 of 2) must use nats:// or tls://, got http://',
    );
    expect(() => loadConfig({ NATS_URL: 'nats://a:4222,b c' })).toThrow('NATS_URL (URL 2 of 2) is not a valid URL');
    expect(() => loadConfig({ NATS_URL: 'http://a:4222' })).toThrow('NATS_URL must use nats:// or tls://, got http://');
    for (const bad of ['0', '6', 'three']) expect(() => loadConfig({ NOETL_JETSTREAM_REPLICAS: bad })).toThrow(ConfigError);
  });

  it('works as the runtime role noetl_app unless NOETL_DB_RUNTIME_ROLE names another or none', () => {
    expect(loadConfig({}).database.runtimeRole).toBe('noetl_app');
    expect(loadConfig({ NOETL_DB_RUNTIME_ROLE: 'ledger_rw' }).database.runtimeRole).toBe('ledger_rw');
    expect(loadConfig({ NOETL_DB_RUNTIME_ROLE: 'none' }).database).not.toHaveProperty('runtimeRole');
  });

  it('reads the limits of the tools user code runs in, with safe defaults', () => {
    expect(loadConfig({}).tools).toEqual({
      ledgerAccess: 'refuse',
      javascript: { memoryMb: 64, maxTimeoutSeconds: 60 },
      python: { user: 'nobody', ledgerAccess: 'refuse', memoryMb: 1024, fileMb: 256, maxTimeoutSeconds: 3600 },
      http: { maxTimeoutSeconds: 300 },
    });
    const config = loadConfig({
      NOETL_TOOLS_LEDGER_ACCESS: 'allow',
      NOETL_JS_THREADS: '2',
      NOETL_JS_MEMORY_MB: '128',
      NOETL_JS_MAX_TIMEOUT_SECONDS: '5',
      NOETL_PYTHON_USER: '1000:1000',
      NOETL_PYTHON_LEDGER_ACCESS: 'allow',
      NOETL_PYTHON_MEMORY_MB: '2048',
      NOETL_PYTHON_FILE_MB: '64',
      NOETL_PYTHON_MAX_TIMEOUT_SECONDS: '600',
      NOETL_HTTP_MAX_TIMEOUT_SECONDS: '20',
    });
    expect(config.tools).toEqual({
      ledgerAccess: 'allow',
      javascript: { threads: 2, memoryMb: 128, maxTimeoutSeconds: 5 },
      python: { user: '1000:1000', ledgerAccess: 'allow', memoryMb: 2048, fileMb: 64, maxTimeoutSeconds: 600 },
      http: { maxTimeoutSeconds: 20 },
    });
  });

  it('reads the limits on how much work a playbook sets off, and the bounds of the runtime sessions', () => {
    expect(loadConfig({}).limits).toEqual({
      playbookDepth: 32,
      childExecutions: 10_000,
      loopItems: 1_000_000,
      rangeItems: 100_000,
      inputBytes: 1_048_576,
    });
    expect(
      loadConfig({
        NOETL_MAX_PLAYBOOK_DEPTH: '4',
        NOETL_MAX_CHILD_EXECUTIONS: '10',
        NOETL_MAX_LOOP_ITEMS: '500',
        NOETL_MAX_RANGE_ITEMS: '2000000',
        NOETL_MAX_INPUT_BYTES: '4096',
      }).limits,
    ).toEqual({ playbookDepth: 4, childExecutions: 10, loopItems: 500, rangeItems: 2_000_000, inputBytes: 4096 });
    expect(() => loadConfig({ NOETL_MAX_INPUT_BYTES: '10' })).toThrow('NOETL_MAX_INPUT_BYTES must be between 1024 and 67108864, got 10');
    expect(loadConfig({}).database.sessions).toEqual({ idleInTransactionMs: 10_000, lockTimeoutMs: 5_000, queryTimeoutMs: 60_000 });
    expect(loadConfig({ NOETL_DB_QUERY_TIMEOUT_MS: '0' }).database.sessions.queryTimeoutMs).toBe(0);
    expect(loadConfig({ NOETL_DB_QUERY_TIMEOUT_MS: '5000' }).database.sessions.queryTimeoutMs).toBe(5_000);
    expect(() => loadConfig({ NOETL_DB_QUERY_TIMEOUT_MS: '500' })).toThrow(
      'NOETL_DB_QUERY_TIMEOUT_MS must be 0 (no limit) or between 1000 and 3600000, got 500',
    );
    expect(() => loadConfig({ NOETL_DB_QUERY_TIMEOUT_MS: '5s' })).toThrow('NOETL_DB_QUERY_TIMEOUT_MS must be an integer');
    expect(() => loadConfig({ NOETL_MAX_PLAYBOOK_DEPTH: '0' })).toThrow('NOETL_MAX_PLAYBOOK_DEPTH must be between 1 and 1000, got 0');
  });

  it('asks for keys unless NOETL_AUTH=off, and reads an OIDC issuer with its claim names', () => {
    expect(loadConfig({}).auth).toEqual({ enabled: true, metrics: 'open', bootstrapKeys: {} });
    expect(loadConfig({ NOETL_AUTH: 'off', NOETL_METRICS_AUTH: 'key' }).auth).toEqual({
      enabled: false,
      metrics: 'key',
      bootstrapKeys: {},
    });
    expect(() => loadConfig({ NOETL_AUTH: 'maybe' })).toThrow(ConfigError);
    const config = loadConfig({
      NOETL_OIDC_JWKS_URL: 'https://id.example/jwks.json',
      NOETL_OIDC_ISSUER: 'https://id.example/',
      NOETL_OIDC_AUDIENCE: 'noetl',
      NOETL_OIDC_CLIENT_ID: ' noetl-ui ',
      NOETL_OIDC_ROLE_CLAIM: 'https://noetl.io/role',
      NOETL_API_KEY: 'noetl_0123456789abcdef_secret',
      NOETL_BOOTSTRAP_ADMIN_KEY: ' noetl_0123456789abcdee_adminsecret ',
      NOETL_BOOTSTRAP_WORKER_KEY: '',
    });
    expect(config.auth.oidc).toEqual({
      jwksUrl: 'https://id.example/jwks.json',
      issuer: 'https://id.example/',
      audience: 'noetl',
      clientId: 'noetl-ui',
      tenantClaim: 'noetl_tenant',
      organizationClaim: 'noetl_organization',
      roleClaim: 'https://noetl.io/role',
    });
    expect(config.client.apiKey?.reveal()).toBe('noetl_0123456789abcdef_secret');
    // Trimmed; an empty one (a Secret's placeholder) is none.
    expect(config.auth.bootstrapKeys.admin?.reveal()).toBe('noetl_0123456789abcdee_adminsecret');
    expect(config.auth.bootstrapKeys.worker).toBeUndefined();
    expect(JSON.stringify(config)).not.toContain('secret');
  });

  it('refuses a tenant or organization id that is not one subject token', () => {
    expect(() => loadConfig({ NOETL_TENANT_ID: 'acme.eu' })).toThrow(/NOETL_TENANT_ID must be 1-64 letters, digits, _ or -/);
    expect(() => loadConfig({ NOETL_ORGANIZATION_ID: 'a*' })).toThrow(ConfigError);
    expect(loadConfig({ NOETL_TENANT_ID: 'acme-eu_1' }).tenancy.tenantId).toBe('acme-eu_1');
  });

  it('masks secrets when the config is printed', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:hunter2@db/x', NOETL_ENCRYPTION_KEY: 'ab'.repeat(32) });
    const printed = JSON.stringify(config) + String(config.database.url);
    expect(printed).not.toContain('hunter2');
    expect(printed).not.toContain('abab');
  });

  it.each([
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must use postgres:// or postgresql://'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL is not a valid URL'],
    [{ PORT: 'eighty' }, 'PORT must be an integer, got "eighty"'],
    [{ PORT: '70000' }, 'PORT must be between 0 and 65535, got 70000'],
    [{ NOETL_ROLES: 'api,cook' }, 'NOETL_ROLES has unknown role(s) cook'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT must be one of auto, json, pretty'],
    [{ NOETL_ENCRYPTION_KEY: 'short' }, 'NOETL_ENCRYPTION_KEY must be 32 bytes'],
    [{ NOETL_PYTHON: 'maybe' }, 'NOETL_PYTHON must be one of on, off'],
    [{ NOETL_TOOLS_LEDGER_ACCESS: 'yes' }, 'NOETL_TOOLS_LEDGER_ACCESS must be one of refuse, database, allow'],
    [
      { NOETL_DB_RUNTIME_ROLE: 'noetl app' },
      'NOETL_DB_RUNTIME_ROLE must be a lower-case role name (letters, digits, _) or none, got "noetl app"',
    ],
    [{ NOETL_JS_MAX_TIMEOUT_SECONDS: '0' }, 'NOETL_JS_MAX_TIMEOUT_SECONDS must be between 1 and 86400, got 0'],
    [{ NOETL_SHARD_ID: 'noetl-projector-3', NOETL_SHARD_COUNT: '3' }, 'names shard 3, outside NOETL_SHARD_COUNT 3'],
    [{ NOETL_SHARD_ID: 'projector' }, 'NOETL_SHARD_ID must be a shard index or a pod name ending in one'],
  ])('stops with one clear message for %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('takes the projector shard from a StatefulSet pod name, and the worker restrictions as lists', () => {
    const config = loadConfig({
      NOETL_SHARD_ID: 'noetl-projector-2',
      NOETL_SHARD_COUNT: '4',
      NOETL_WORKER_TOOLS: 'python, javascript,python',
      NOETL_WORKER_POOL: 'gpu',
    });
    expect(config.projector).toEqual({ shardIndex: 2, shardCount: 4 });
    expect(config.worker.tools).toEqual(['python', 'javascript']);
    expect(config.worker.pool).toBe('gpu');
    expect(loadConfig({}).projector).toEqual({ shardIndex: 0, shardCount: 1 });
    expect(loadConfig({}).worker.tools).toBeUndefined();
  });

  it("refuses a worker pool that cannot name a NATS subject, and bounds a stream's pending chunks (default 8)", () => {
    expect(() => loadConfig({ NOETL_WORKER_POOL: 'gpu.a' })).toThrow(
      'NOETL_WORKER_POOL must be 1-63 of A-Z a-z 0-9 _ - (not starting with _ or -), got "gpu.a"',
    );
    expect(loadConfig({}).worker.streamMaxPendingChunks).toBe(8);
    expect(loadConfig({ NOETL_STREAM_MAX_PENDING_CHUNKS: '2' }).worker.streamMaxPendingChunks).toBe(2);
    expect(() => loadConfig({ NOETL_STREAM_MAX_PENDING_CHUNKS: '0' })).toThrow(
      'NOETL_STREAM_MAX_PENDING_CHUNKS must be between 1 and 100000, got 0',
    );
  });

  it('takes the relay and the events stream limits, with defaults', () => {
    expect(loadConfig({}).relay).toEqual({
      batch: 500,
      pollMs: 5000,
      stream: { maxAgeMs: 7 * 86_400_000, maxBytes: 1024 ** 3, duplicateWindowMs: 120_000 },
    });
    const config = loadConfig({ NOETL_RELAY_BATCH: '50', NOETL_EVENTS_DUPLICATE_WINDOW_SECONDS: '600' });
    expect(config.relay).toMatchObject({ batch: 50, stream: { duplicateWindowMs: 600_000 } });
    expect(() => loadConfig({ NOETL_RELAY_BATCH: '0' })).toThrow('NOETL_RELAY_BATCH must be between 1 and 10000, got 0');
  });

  it('turns traces on only when OTLP is configured, with the endpoint and protocol the OpenTelemetry spec defines', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
    });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing).toEqual({
      url: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'noetl-prod',
      }).tracing,
    ).toEqual({ url: 'https://traces.example/otlp', protocol: 'http/json', serviceName: 'noetl-prod' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow('OTEL_TRACES_EXPORTER must be one of otlp, none, got "zipkin"');
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, got "grpc"',
    );
  });

  it('keeps payloads in the database unless NOETL_PAYLOAD_STORE=s3, which needs a bucket', () => {
    expect(loadConfig({}).payloads.s3).toBeUndefined();
    expect(loadConfig({ NOETL_PAYLOAD_STORE: 'database', NOETL_S3_BUCKET: 'b-1' }).payloads.s3).toBeUndefined();
    expect(loadConfig({ NOETL_PAYLOAD_STORE: 's3', NOETL_S3_BUCKET: 'noetl-payloads' }).payloads.s3).toEqual({
      bucket: 'noetl-payloads',
      region: 'us-east-1',
      prefix: 'noetl',
      forcePathStyle: false,
      minBytes: 256 * 1024,
      maxAttempts: 10,
      gcGraceMs: 86_400_000,
    });
    const minio = loadConfig({
      NOETL_PAYLOAD_STORE: 's3',
      NOETL_S3_BUCKET: 'noetl',
      NOETL_S3_ENDPOINT: 'http://minio:9000',
      NOETL_S3_REGION: 'eu-west-1',
      NOETL_S3_PREFIX: '/prod/payloads/',
      NOETL_S3_FORCE_PATH_STYLE: 'true',
      NOETL_S3_MIN_BYTES: '1048576',
      NOETL_S3_MAX_ATTEMPTS: '4',
      NOETL_S3_GC_GRACE_SECONDS: '0',
    }).payloads.s3;
    expect(minio).toEqual({
      endpoint: 'http://minio:9000',
      bucket: 'noetl',
      region: 'eu-west-1',
      prefix: 'prod/payloads',
      forcePathStyle: true,
      minBytes: 1048576,
      maxAttempts: 4,
      gcGraceMs: 0,
    });
    expect(() => loadConfig({ NOETL_PAYLOAD_STORE: 'gcs' })).toThrow('NOETL_PAYLOAD_STORE must be one of database, s3, got "gcs"');
    expect(() => loadConfig({ NOETL_PAYLOAD_STORE: 's3' })).toThrow('NOETL_S3_BUCKET is required when NOETL_PAYLOAD_STORE=s3');
    expect(() => loadConfig({ NOETL_PAYLOAD_STORE: 's3', NOETL_S3_BUCKET: 'My_Bucket' })).toThrow(/NOETL_S3_BUCKET must be a bucket name/);
    expect(() => loadConfig({ NOETL_PAYLOAD_STORE: 's3', NOETL_S3_BUCKET: 'b-1', NOETL_S3_ENDPOINT: 'minio:9000' })).toThrow(
      'NOETL_S3_ENDPOINT must use http:// or https://, got minio://',
    );
    expect(() => loadConfig({ NOETL_S3_FORCE_PATH_STYLE: 'yes' })).toThrow(
      'NOETL_S3_FORCE_PATH_STYLE must be one of true, false, got "yes"',
    );
  });

  it('lists exactly the variables it reads', () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get: (_target, name) => {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });
    loadConfig(env);
    expect([...read].sort()).toEqual([...CONFIG_ENV_NAMES].sort());
  });
});
