import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { keyFilePath, readKeyFile } from '../../libs/config/src/key-files';
import { runCli, startRoleApp, type CliServerProcess } from '../support/cli-server-process';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { requireNats, requireRedis } from '../support/services';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

// Four role apps and a few CLI runs.
jest.setTimeout(120_000);

/** A home no process can write, even as root: a directory under a file (ENOTDIR), like a read-only root filesystem with no NOETL_HOME. */
const UNWRITABLE_HOME = '/dev/null/noetl-home';
const hello = readFileSync(join(__dirname, '..', '..', 'examples', 'hello.yaml'), 'utf8');

/**
 * Issue 26's deploys that boot, as the role apps run in the image: keys
 * come from the deployment's secret store (NOETL_BOOTSTRAP_*_KEY), nothing
 * needs a writable home, and a worker that the API refuses says so on its
 * readiness probe instead of looking ready while it does nothing.
 */
describe('a deployment that boots with a read-only home', () => {
  let database: TestDatabase;
  let common: Record<string, string>;
  const started: CliServerProcess[] = [];
  const start = async (...args: Parameters<typeof startRoleApp>) => {
    const app = await startRoleApp(...args);
    started.push(app);
    return app;
  };
  const storedKeys = async () => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return (
        await client.query<{ key_id: string; role: string; row: string }>(
          'SELECT key_id, role, row_to_json(k)::text AS row FROM noetl.api_key k ORDER BY role',
        )
      ).rows;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    common = {
      DATABASE_URL: database.url,
      NATS_URL: await requireNats(),
      REDIS_URL: await requireRedis(),
      NOETL_HOME: UNWRITABLE_HOME,
      LOG_LEVEL: 'info',
    };
  });

  afterEach(async () => {
    for (const app of started.splice(0)) await app.stop();
  });

  afterAll(async () => {
    await database?.drop();
  });

  /** Registers and runs examples/hello through `api` as `adminKey`, to COMPLETED. */
  const runsHello = async (api: CliServerProcess, adminKey: string) => {
    const client = new NoetlHttpClient(api.url, adminKey);
    await client.register(hello);
    expect((await client.waitForTerminal(await client.execute('examples/hello'), 30_000)).status).toBe('COMPLETED');
  };

  it('starts an api that was given no key, makes none, and says how to give one', async () => {
    // The test cluster's superuser, kept as the runtime's role: every start says it could change the ledger behind its triggers.
    const asSuperuser = { ...common, NOETL_DB_RUNTIME_ROLE: 'none' };
    const api = await start('api', asSuperuser);
    expect(api.output()).toContain(`the first admin key could not be written to ${UNWRITABLE_HOME}/admin.key, so none was made`);
    expect(api.output()).toContain('NOETL_BOOTSTRAP_ADMIN_KEY');
    expect(api.output()).toMatch(
      /"level":50,.*DATABASE_URL can change the ledger behind its triggers: its role \\"[^"\\]+\\" is a superuser/,
    );
    expect(await storedKeys()).toEqual([]);
    // Restarted, it says the same and still starts: no crash loop.
    await api.stop();
    expect((await start('api', asSuperuser)).output()).toContain('so none was made');
  });

  it('stores the keys of the secret store hashed; a worker with its key runs work, one with none answers 503 with the reason', async () => {
    const adminKey = (await runCli(['keys', 'generate'], {})).stdout.trim();
    const workerKey = (await runCli(['keys', 'generate'], {})).stdout.trim();
    expect(adminKey).toMatch(/^noetl_[0-9a-f]{16}_[\w-]{43}$/);
    expect(workerKey).not.toBe(adminKey);
    const secrets = { NOETL_BOOTSTRAP_ADMIN_KEY: adminKey, NOETL_BOOTSTRAP_WORKER_KEY: workerKey };

    // The migration Job's step: idempotent, so the api's own at every start finds them stored.
    for (let run = 0; run < 2; run++) {
      const bootstrap = await runCli(['keys', 'bootstrap'], { ...common, ...secrets });
      expect({ code: bootstrap.code, stderr: bootstrap.stderr }).toEqual({ code: 0, stderr: '' });
      expect(bootstrap.stdout).toContain(`worker key ${workerKey.slice(6, 22)} of default/default (NOETL_BOOTSTRAP_WORKER_KEY) is stored`);
    }
    const keys = await storedKeys();
    expect(keys.map(({ key_id, role }) => ({ key_id, role }))).toEqual([
      { key_id: adminKey.slice(6, 22), role: 'admin' },
      { key_id: workerKey.slice(6, 22), role: 'worker' },
    ]);
    for (const [key, { row }] of [adminKey, workerKey].map((k, i) => [k, keys[i]!] as const)) {
      const secret = key.slice(23);
      expect(row).not.toContain(secret);
      expect(row).toContain(`\\\\x${createHash('sha256').update(secret).digest('hex')}`);
    }

    const api = await start('api', { ...common, ...secrets });
    expect(api.output()).not.toContain('could not be written');
    await start('scheduler', common);
    await start('worker', { ...common, NOETL_SERVER_URL: api.url, NOETL_API_KEY: workerKey });
    await runsHello(api, adminKey);

    const keyless = await start('worker', { ...common, NOETL_SERVER_URL: api.url }, { until: 'live' });
    const probe = await waitFor(
      async () => {
        const res = await fetch(`${keyless.url}/health/ready`);
        return res.status === 503
          ? ((await res.json()) as { details: Record<string, string>; reasons: Record<string, string> })
          : undefined;
      },
      { description: 'the keyless worker to answer 503' },
    );
    // A worker on the api opens no database (issue 25 item 2): its readiness is its registration alone.
    expect(probe.details).toEqual({ registry: 'down' });
    expect(probe.reasons.registry).toBe(
      'its report to the registry failed: an Authorization: Bearer <API key or token> header is required (this process presents no key: set NOETL_API_KEY, or keep a worker key in NOETL_HOME/worker.key)',
    );
  });

  it('the compose way: `keys bootstrap --generate` keeps both keys in a shared home, where the worker and the CLI find them', async () => {
    const home = mkdtempSync(join(tmpdir(), 'noetl-keys-'));
    try {
      const shared = { ...common, NOETL_HOME: home };
      const first = await runCli(['keys', 'bootstrap', '--generate'], shared);
      expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
      const adminKey = readKeyFile(home, 'admin')!;
      const workerKey = readKeyFile(home, 'worker')!;
      expect(first.stdout).toContain(
        `worker key ${workerKey.slice(6, 22)} of default/default (new, written to ${home}/worker.key) is stored`,
      );
      for (const role of ['admin', 'worker'] as const) expect(statSync(keyFilePath(home, role)).mode & 0o777).toBe(0o600);
      // A restart of the stack finds them and makes none.
      const again = await runCli(['keys', 'bootstrap', '--generate'], shared);
      expect(again.stdout).toContain(`admin key ${adminKey.slice(6, 22)} of default/default (${home}/admin.key) is stored`);
      expect(readKeyFile(home, 'worker')).toBe(workerKey);

      const api = await start('api', shared);
      expect(api.output()).not.toContain('no API key existed');
      await start('scheduler', common);
      await start('worker', { ...shared, NOETL_SERVER_URL: api.url });
      await runsHello(api, adminKey);
      const listed = await runCli(['workers'], { NOETL_HOME: home, NOETL_SERVER_URL: api.url });
      expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
