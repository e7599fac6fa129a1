import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventType } from '@noetl/event-kernel';
import { startCliServer, startRoleApp, type CliServerProcess } from '../support/cli-server-process';
import { ofType } from '../support/ledger-checks';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { withAdminClient } from '../support/postgres';
import { requireNats } from '../support/services';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../support/test-database';

// Two process boots and three short executions.
jest.setTimeout(90_000);

const header = (path: string) => `apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: ${path.replace(/\W/g, '_')}, path: ${path}}\n`;

const WORKER_MAIN = join(__dirname, '..', '..', 'dist', 'apps', 'worker', 'src', 'main.js');

/** A python step, then a postgres step on `{{ dsn }}` that reads what python made. */
const PYTHON_THEN_POSTGRES = `${header('dbless/python-then-postgres')}workflow:
  - step: py
    tool: {kind: python, code: "result = {'n': 41 + 1}"}
    next: [{step: pg}]
  - step: pg
    tool:
      kind: postgres
      connection: "{{ dsn }}"
      command: "SELECT current_user AS who, {{ py.n }}::int AS n"
`;

/** One postgres step on `{{ dsn }}`. */
const POSTGRES_ONLY = `${header('dbless/postgres')}workflow:
  - step: reach
    tool: {kind: postgres, connection: "{{ dsn }}", command: "SELECT 1 AS one"}
`;

/** The names in a process's environment, as the kernel holds it (what its python steps could read through /proc). */
function environmentNames(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .filter(Boolean)
    .map((entry) => entry.slice(0, entry.indexOf('=')));
}

/**
 * Issue 25 item 2: a worker pod holds no DATABASE_URL. The api and the
 * scheduler run on the ledger; the worker app runs with NOETL_SERVER_URL,
 * NATS and its worker key only, and still boots, gets ready, runs python and
 * postgres steps and reports them. Its postgres steps are still refused the
 * ledger's cluster as the superuser: the ledger's identity came from the API.
 */
describe('a worker process without the ledger database', () => {
  let ledger: TestDatabase;
  let userDatabase: TestDatabase;
  let api: CliServerProcess;
  let worker: CliServerProcess;
  let client: NoetlHttpClient;
  let workerLog = '';
  const ordinary = `noetl_t_dbless_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    const nats = await requireNats();
    [ledger, userDatabase] = await Promise.all([createTestDatabase(), createEmptyDatabase()]);
    await withAdminClient((admin) => admin.query(`CREATE ROLE ${ordinary} LOGIN`));
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const refuse = { NOETL_TOOLS_LEDGER_ACCESS: 'refuse' };
    api = await startCliServer({
      DATABASE_URL: ledger.url,
      NATS_URL: nats,
      NOETL_TENANT_ID: tenant,
      NOETL_ROLES: 'api,scheduler',
      NOETL_SWEEP_MS: '200',
      LOG_LEVEL: 'warn',
      ...refuse,
    });
    client = new NoetlHttpClient(api.url, api.apiKey);
    // No DATABASE_URL: the harness passes none of this process's own (startBuiltApp's inheritedEnv).
    const env = {
      NATS_URL: nats,
      NOETL_TENANT_ID: tenant,
      NOETL_SERVER_URL: api.url,
      NOETL_API_KEY: await client.createKey('worker'),
      NOETL_PYTHON: 'on',
      LOG_LEVEL: 'warn',
      ...refuse,
    };
    worker = await startRoleApp('worker', env, { onOutput: (chunk) => void (workerLog += chunk) });
    await client.register(PYTHON_THEN_POSTGRES);
    await client.register(POSTGRES_ONLY);
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await Promise.all([ledger?.drop(), userDatabase?.drop()]);
    await withAdminClient((admin) => admin.query(`DROP ROLE IF EXISTS ${ordinary}`));
  });

  it('boots and answers ready with no DATABASE_URL in its environment, and says nothing of one', async () => {
    expect(environmentNames(worker.pid).filter((name) => name === 'DATABASE_URL' || name.startsWith('PG'))).toEqual([]);
    expect(environmentNames(worker.pid)).toContain('NOETL_SERVER_URL');
    const ready = await fetch(`${worker.url}/health/ready`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 200,
      body: { status: 'ok', details: { registry: 'up' } },
    });
    // The start warnings about the database: python steps reading DATABASE_URL, a DATABASE_URL set for nothing.
    expect(workerLog).not.toMatch(/DATABASE_URL/);
  });

  it('runs a python step and a postgres step, and reports both through the API', async () => {
    const dsn = new URL(userDatabase.url);
    dsn.username = ordinary;
    dsn.password = '';
    const detail = await client.run(PYTHON_THEN_POSTGRES, { dsn: dsn.toString() }, 30_000);
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { rows: [{ who: ordinary, n: 42 }] } });
    const claims = ofType(await client.events(detail.execution_id), EventType.CommandClaimed).map((e) => [
      e.step,
      (e.payload as { worker_id: string }).worker_id,
    ]);
    expect(claims.map(([step]) => step)).toEqual(['py', 'pg']);
    expect(new Set(claims.map(([, id]) => id)).size).toBe(1);
  });

  it("refuses a postgres step the ledger's cluster as the superuser, by the identity the API gave", async () => {
    const detail = await client.run(POSTGRES_ONLY, { dsn: userDatabase.url }, 30_000);
    expect(detail).toMatchObject({
      status: 'FAILED',
      error: {
        step: 'reach',
        kind: 'auth',
        message: expect.stringMatching(
          /^postgres: refusing to connect as role "[^"]+" to the cluster of this runtime's ledger: it is a superuser;/,
        ),
      },
    });
    const exit = ofType(await client.events(detail.execution_id), EventType.StepExit).find((e) => e.step === 'reach');
    expect(exit?.payload).toMatchObject({ status: 'FAILED', error: { code: 'PROTECTED_DATABASE', retryable: false } });
  });

  it('a worker app given neither NOETL_SERVER_URL nor DATABASE_URL stops at once, naming both', async () => {
    const run = spawnSync(process.execPath, [WORKER_MAIN], {
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect({ code: run.status, stderr: run.stderr }).toEqual({
      code: 1,
      stderr: expect.stringMatching(/^worker: a worker needs NOETL_SERVER_URL .* or DATABASE_URL /),
    });
  });

  it('refuses it the ledger database itself', async () => {
    const detail = await client.run(POSTGRES_ONLY, { dsn: ledger.url }, 30_000);
    expect(detail).toMatchObject({
      status: 'FAILED',
      error: {
        step: 'reach',
        kind: 'auth',
        message: expect.stringContaining(`postgres: refusing to connect to database "${new URL(ledger.url).pathname.slice(1)}"`),
      },
    });
  });
});
