import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { EventType } from '@noetl/event-kernel';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { e2ePlaybook } from '../support/e2e-app';
import { ofType } from '../support/ledger-checks';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../support/scripted-http-server';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../support/test-database';
import { TEST_ENCRYPTION_KEY } from '../support/test-engine';

// One server boot, two executions through http, javascript, python, postgres, a loop and a child.
jest.setTimeout(90_000);

/** Unique per run, with characters that URL-encoding and base64 change. */
const CANARY = `canary-${randomBytes(6).toString('hex')}+/=s3cr3t`;
/** Every spelling of the canary that would be a leak: as is, URL-encoded, base64. */
const SPELLINGS = [CANARY, encodeURIComponent(CANARY), Buffer.from(CANARY).toString('base64').replace(/=+$/, '')];

/**
 * Secrets never leave the worker (DESIGN.md invariant 8, issue 11 item 3): a
 * credential's value travels through every kind of call and comes back in
 * results, errors and output, and afterwards no row of any table of the
 * runtime's database and no line the server logged (at debug) holds it.
 */
describe('a secret canary through every tool, a loop frame and a sub-playbook', () => {
  let database: TestDatabase;
  let userDatabase: TestDatabase;
  let mirror: ScriptedHttpServer;
  let server: CliServerProcess;
  let client: NoetlHttpClient;
  let log = '';

  beforeAll(async () => {
    [database, userDatabase, mirror] = await Promise.all([createTestDatabase(), createEmptyDatabase(), startScriptedHttpServer()]);
    server = await startCliServer(
      {
        DATABASE_URL: database.url,
        NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        NOETL_TENANT_ID: `t${randomBytes(4).toString('hex')}`,
        NOETL_SWEEP_MS: '200',
        LOG_LEVEL: 'debug',
      },
      { onOutput: (chunk) => (log += chunk) },
    );
    client = new NoetlHttpClient(server.url, server.apiKey);
    const target = new URL(userDatabase.url);
    await client.createCredential('canary_token', 'bearer', { token: CANARY });
    await client.createCredential('canary_pg', 'postgres', {
      db_host: target.hostname,
      db_port: Number(target.port || 5432),
      db_user: decodeURIComponent(target.username) || 'postgres',
      db_password: CANARY,
      db_name: userDatabase.name,
    });
    for (const name of ['canary-child', 'canary-parent', 'canary-postgres']) await client.register(e2ePlaybook(name));
  });

  afterAll(async () => {
    await server?.stop();
    await Promise.all([database?.drop(), userDatabase?.drop(), mirror?.close()]);
  });

  it('runs them all, the canary scrubbed to *** wherever it came back', async () => {
    const parent = await client.waitForTerminal(await client.execute('e2e/canary_parent', { mirror: mirror.url }), 60_000);
    expect(parent).toMatchObject({
      status: 'COMPLETED',
      result: {
        js: { token: '***', wrapped: '<***>', url: '***' },
        py: { token: '***', b64: '***', server_env: [], server_proc_environ: 'PermissionError' },
        // The child resolved the credential itself; what the parent handed it was scrubbed on the way.
        child: { handed: '***', own: '***', same: false },
      },
    });
    expect((parent.result as { py: { uid: number } }).py.uid).not.toBe(0);
    const events = await client.events(parent.execution_id);
    const mirrored = ofType(events, EventType.StepExit).find((e) => e.step === 'http_mirror');
    // The remote really echoed the credential, in a header and the body, and it came back scrubbed.
    expect(mirrored?.payload).toMatchObject({
      result: {
        headers: { 'x-mirror-authorization': 'Bearer ***' },
        data: { headers: { authorization: 'Bearer ***', 'x-copy': '***' }, body: '{"sent":"***"}' },
      },
    });
    expect(ofType(events, EventType.FrameCommitted)).toHaveLength(2);

    const failed = await client.waitForTerminal(await client.execute('e2e/canary_postgres', {}), 60_000);
    expect(failed.status).toBe('FAILED');
    const pgEvents = await client.events(failed.execution_id);
    const messages = [...ofType(pgEvents, EventType.FrameCommitted), ...ofType(pgEvents, EventType.StepExit)].map((e) =>
      JSON.stringify(e.payload),
    );
    expect(messages.join('\n')).toContain('invalid input syntax for type integer: \\"***\\"');
  });

  it('leaves the canary in no row of any table of the runtime database', async () => {
    const db = new Client({ connectionString: database.url });
    await db.connect();
    try {
      const { rows: columns } = await db.query<{ schema: string; table: string; column: string; type: string }>(
        `SELECT c.table_schema AS schema, c.table_name AS table, c.column_name AS column, c.data_type AS type
           FROM information_schema.columns c
           JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
          WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema')`,
      );
      const tables = new Map<string, Array<{ column: string; type: string }>>();
      for (const c of columns) tables.set(`"${c.schema}"."${c.table}"`, [...(tables.get(`"${c.schema}"."${c.table}"`) ?? []), c]);
      expect(tables.has('"noetl"."event"')).toBe(true);
      const hits: Record<string, number> = {};
      let scannedRows = 0;
      for (const [table, cols] of tables) {
        // Every column of every type: bytea by its bytes (payloads, Arrow frames), the rest as text.
        const matches = cols
          .flatMap((c) =>
            SPELLINGS.map((_, i) =>
              c.type === 'bytea'
                ? `position(convert_to($${i + 1}, 'UTF8') IN "${c.column}") > 0`
                : `strpos("${c.column}"::text, $${i + 1}) > 0`,
            ),
          )
          .join(' OR ');
        const { rows } = await db.query<{ n: number; total: number }>(
          `SELECT count(*) FILTER (WHERE ${matches})::int AS n, count(*)::int AS total FROM ${table}`,
          SPELLINGS,
        );
        scannedRows += rows[0]!.total;
        if (rows[0]!.n > 0) hits[table] = rows[0]!.n;
      }
      expect(hits).toEqual({});
      expect(scannedRows).toBeGreaterThan(100);
    } finally {
      await db.end();
    }
  });

  it('leaves the canary in no log line of the server, though what user code printed was logged', async () => {
    const lines = log.split('\n');
    expect(lines.filter((line) => SPELLINGS.some((s) => line.includes(s)))).toEqual([]);
    expect(lines.some((line) => line.includes('the token is ***'))).toBe(true);
    expect(lines.some((line) => line.includes('python sees ***'))).toBe(true);
  });
});
