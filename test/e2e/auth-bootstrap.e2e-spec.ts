import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyFilePath, readKeyFile } from '../../libs/config/src/key-files';
import { runCli, startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

// Two server boots and a few CLI runs.
jest.setTimeout(120_000);

const hello = join(__dirname, '..', '..', 'examples', 'hello.yaml');

/**
 * Issue 11's bootstrap, as an operator meets it: the first `noetl server` of
 * a deployment makes an admin key, leaves it in $NOETL_HOME/admin.key (mode
 * 0600) and says where; the CLI's client commands find it there; `noetl
 * keys` makes, lists and revokes keys on the database; a refused call is
 * logged without the secret it presented.
 */
describe('the first admin key of a deployment', () => {
  let database: TestDatabase;
  let home: string;
  let server: CliServerProcess | undefined;

  const boot = (extra: Record<string, string> = {}) =>
    startCliServer({ DATABASE_URL: database.url, NOETL_HOME: home, NOETL_ROLES: 'api,scheduler,worker', LOG_LEVEL: 'warn', ...extra });
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    runCli(args, { DATABASE_URL: database.url, NOETL_HOME: home, NOETL_SERVER_URL: server!.url, ...extra });

  beforeAll(async () => {
    database = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'noetl-home-'));
  });

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  afterAll(async () => {
    rmSync(home, { recursive: true, force: true });
    await database?.drop();
  });

  it('is made once, readable by its owner only, found by the CLI, and never made again', async () => {
    server = await boot();
    const key = readKeyFile(home, 'admin');
    expect(key).toMatch(/^noetl_[0-9a-f]{16}_[\w-]{43}$/);
    expect(statSync(keyFilePath(home, 'admin')).mode & 0o777).toBe(0o600);
    expect(server.output()).toContain(`written to ${keyFilePath(home, 'admin')} (mode 0600)`);
    expect(server.output()).not.toContain(key!.slice(-43));

    const registered = await cli(['register', hello]);
    expect({ code: registered.code, stderr: registered.stderr }).toEqual({ code: 0, stderr: '' });
    expect(registered.stdout).toMatch(/^examples\/hello v1 \d+/);
    // `ID=$(noetl execute ...)`: the id alone, which `status` takes.
    const executed = await cli(['execute', 'examples/hello']);
    expect(executed.stdout).toMatch(/^\d+\n$/);
    expect((await cli(['status', executed.stdout.trim()])).code).toBe(0);

    const emptyHome = mkdtempSync(join(tmpdir(), 'noetl-empty-'));
    const outsider = await cli(['register', hello], { NOETL_HOME: emptyHome });
    expect(outsider.code).toBe(1);
    expect(outsider.stderr).toContain(
      `unauthenticated: an Authorization: Bearer <API key or token> header is required; no API key was found: NOETL_API_KEY is unset and ${keyFilePath(emptyHome, 'admin')} does not exist`,
    );

    await server.stop();
    server = await boot();
    expect(readKeyFile(home, 'admin')).toBe(key);
    expect(server.output()).not.toContain('no API key existed');
  });

  it('lets `noetl keys` make a viewer key that reads but may not execute, and revoke it', async () => {
    server = await boot();
    const made = await cli(['keys', 'create', '--role', 'viewer', '--name', 'dashboards', '--json']);
    expect(made.code).toBe(0);
    const viewer = JSON.parse(made.stdout) as { key: string; key_id: string; role: string; tenant_id: string };
    expect(viewer).toMatchObject({ role: 'viewer', tenant_id: 'default' });

    const listed = await cli(['keys', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`${viewer.key_id}\\s+viewer\\s+default\\s+default\\s+dashboards`));
    expect(listed.stdout).not.toContain(viewer.key.slice(-43));

    const asViewer = { NOETL_API_KEY: viewer.key };
    expect((await cli(['workers'], asViewer)).code).toBe(0);
    const execute = await cli(['execute', 'examples/hello'], asViewer);
    expect(execute.code).toBe(1);
    expect(execute.stderr).toContain('forbidden: the viewer role may not POST /api/execute; it needs developer (HTTP 403)');

    expect((await cli(['keys', 'revoke', viewer.key_id])).stdout).toContain(`revoked ${viewer.key_id} (viewer of default/default)`);
    // The server trusts a key it verified for a few seconds at most.
    await waitFor(async () => (await cli(['workers'], asViewer)).stderr.includes('the API key is unknown or revoked'), {
      timeoutMs: 20_000,
      intervalMs: 500,
    });
  });

  it('logs a refused call with the key id and the reason, never the secret presented', async () => {
    let output = '';
    server = await startCliServer(
      { DATABASE_URL: database.url, NOETL_HOME: home, NOETL_ROLES: 'api', LOG_LEVEL: 'warn' },
      { onOutput: (chunk) => (output += chunk) },
    );
    const forged = `noetl_${'a'.repeat(16)}_${'S3cr3tCanary'.padEnd(43, 'x')}`;
    const res = await fetch(`${server.url}/api/executions`, { headers: { authorization: `Bearer ${forged}` } });
    expect(res.status).toBe(401);
    await waitFor(async () => output.includes('401 GET /api/executions'), { description: 'the 401 log line' });
    expect(output).toContain(`401 GET /api/executions (key:${'a'.repeat(16)}): the API key is unknown or revoked`);
    expect(output).not.toContain('S3cr3tCanary');
  });

  it('warns at every start that NOETL_AUTH=off asks no key', async () => {
    server = await boot({ NOETL_AUTH: 'off' });
    expect(server.output()).toContain('NOETL_AUTH=off: the API asks no key');
    const listed = await fetch(`${server.url}/api/executions`);
    expect(listed.status).toBe(200);
  });
});
