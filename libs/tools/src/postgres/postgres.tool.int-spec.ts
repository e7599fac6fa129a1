import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Client } from 'pg';
import { CallError } from '@noetl/dsl';
import type { ToolContext } from '../tool';
import { PostgresTool } from './postgres.tool';
import { callFailure } from '../testing/call-failure';
import { testToolContext } from '../testing/tool-context';
import { createEmptyDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { withAdminClient } from '../../../../test/support/postgres';
import { waitFor } from '../../../../test/support/wait-for';
import { readDatabaseIdentity } from './database-identity';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const url = new URL(DATABASE_URL);
const credentials: Record<string, Record<string, unknown>> = {
  pg_noetl: {
    db_host: url.hostname,
    db_port: Number(url.port || 5432),
    db_user: decodeURIComponent(url.username),
    db_password: decodeURIComponent(url.password),
    db_name: url.pathname.slice(1),
  },
  pg_libpq: {
    host: url.hostname,
    port: String(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.slice(1),
  },
  pg_dsn: { dsn: DATABASE_URL },
  pg_refused: { db_host: '127.0.0.1', db_port: 1, db_user: 'x', db_password: 's3cret-value', db_name: 'x' },
};

function context(signal = new AbortController().signal): ToolContext {
  return testToolContext(credentials, { signal });
}

describe('PostgresTool against PostgreSQL', () => {
  const tool = new PostgresTool({ connectTimeoutMs: 3_000 });
  const schema = `noetl_tools_${randomBytes(4).toString('hex')}`;
  const run = (config: Record<string, unknown>, ctx = context()) =>
    tool.run({ auth: 'pg_noetl', ...config }, ctx) as Promise<Record<string, unknown>>;

  beforeAll(async () => {
    await run({
      command: `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items (id int PRIMARY KEY, name text, doc jsonb, n bigint, amount numeric, at timestamptz);`,
    });
  });

  afterAll(async () => {
    await run({ command: `DROP SCHEMA IF EXISTS ${schema} CASCADE` }).catch(() => undefined);
    await tool.close();
  });

  it('runs a multi-statement script with DO $$ and a comment holding an apostrophe, shaping every statement', async () => {
    const result = await run({
      command: `
        -- Reset this facility's rows in case of replay.
        DELETE FROM ${schema}.items;
        INSERT INTO ${schema}.items (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'it''s');
        DO $$
        BEGIN
          IF (SELECT count(*) FROM ${schema}.items) <> 3 THEN
            RAISE EXCEPTION 'expected 3 rows, got %', (SELECT count(*) FROM ${schema}.items);
          END IF;
        END $$;
        UPDATE ${schema}.items SET name = upper(name) WHERE id < 3;
        SELECT id, name FROM ${schema}.items ORDER BY id;
      `,
    });
    expect(result).toMatchObject({
      status: 'success',
      statement_count: 5,
      rows: [
        { id: 1, name: 'A' },
        { id: 2, name: 'B' },
        { id: 3, name: "it's" },
      ],
      row_count: 3,
      columns: ['id', 'name'],
      command_1: { rows: [], row_count: 3, columns: [] },
      command_2: { rows: [], row_count: 0, columns: [] },
      command_3: { rows: [], row_count: 2, columns: [] },
    });
    expect(result.command_4).toEqual({ rows: result.rows, row_count: 3, columns: ['id', 'name'] });
  });

  it('returns rows for UPDATE ... RETURNING and WITH ... UPDATE ... RETURNING, whatever the first keyword', async () => {
    await run({ command: `DELETE FROM ${schema}.items; INSERT INTO ${schema}.items (id, name) VALUES (1, 'a'), (2, 'b')` });
    const updated = await run({ command: `UPDATE ${schema}.items SET name = 'z' WHERE id = 1 RETURNING id, name` });
    expect(updated).toMatchObject({ rows: [{ id: 1, name: 'z' }], row_count: 1, columns: ['id', 'name'] });
    const claimed = await run({
      query: `WITH c AS (SELECT id FROM ${schema}.items WHERE id = 2 FOR UPDATE SKIP LOCKED) UPDATE ${schema}.items i SET name = 'claimed' FROM c WHERE i.id = c.id RETURNING i.id`,
    });
    expect(claimed).toMatchObject({ rows: [{ id: 2 }], row_count: 1 });
  });

  it('reports affected rows for a single DML statement and rows: [] for an empty SELECT', async () => {
    await run({ command: `DELETE FROM ${schema}.items; INSERT INTO ${schema}.items (id) SELECT g FROM generate_series(1, 4) g` });
    expect(await run({ command: `UPDATE ${schema}.items SET name = 'x' WHERE id <= 3` })).toMatchObject({
      rows: [],
      row_count: 3,
      statement_count: 1,
    });
    expect(await run({ query: `SELECT id FROM ${schema}.items WHERE id > 100` })).toMatchObject({
      rows: [],
      row_count: 0,
      columns: ['id'],
    });
  });

  it('binds params to $1..$n, including LIKE patterns with %', async () => {
    await run({
      command: `DELETE FROM ${schema}.items; INSERT INTO ${schema}.items (id, name) VALUES (1, 'alice@example.com'), (2, 'bob@other.org')`,
    });
    const result = await run({ query: `SELECT id FROM ${schema}.items WHERE name LIKE $1 AND id >= $2;`, params: ['%@example.com', 1] });
    expect(result).toMatchObject({ rows: [{ id: 1 }], row_count: 1 });
    const literal = await run({ query: `SELECT count(*) AS n FROM ${schema}.items WHERE name LIKE '%@%'` });
    expect(literal.rows).toEqual([{ n: 2 }]);
  });

  it('returns JSON as parsed values, int8 as numbers when safe, numeric and timestamps as JSON-friendly values', async () => {
    await run({
      command: `DELETE FROM ${schema}.items;
        INSERT INTO ${schema}.items VALUES (1, 'a', '{"k": [1, null, "x"]}', 42, 12.50, '2025-01-02 03:04:05.123+00'), (2, 'b', 'null', 9007199254740993, 12345678901234567890.123, NULL)`,
    });
    const { rows } = await run({
      query: `SELECT id, doc, n, amount, at, ARRAY[n, 1]::bigint[] AS ns, DATE '2025-03-04' AS d FROM ${schema}.items ORDER BY id`,
    });
    expect(rows).toEqual([
      { id: 1, doc: { k: [1, null, 'x'] }, n: 42, amount: 12.5, at: '2025-01-02T03:04:05.123Z', ns: [42, 1], d: '2025-03-04' },
      {
        id: 2,
        doc: null,
        n: '9007199254740993',
        amount: '12345678901234567890.123',
        at: null,
        ns: ['9007199254740993', 1],
        d: '2025-03-04',
      },
    ]);
  });

  it('rolls the whole script back when a statement fails, and names the failing statement', async () => {
    await run({ command: `DELETE FROM ${schema}.items` });
    const err = await callFailure(
      run({
        command: `INSERT INTO ${schema}.items (id) VALUES (1); CREATE TABLE ${schema}.never (x int); SELEC 1; INSERT INTO ${schema}.items (id) VALUES (2)`,
      }),
    );
    expect(err.info).toMatchObject({ kind: 'db', code: '42601', retryable: false });
    expect(err.info.message).toContain('statement 2 (command_2)');
    expect(err.data).toMatchObject({ status: 'error', statement_count: 4, errors: [{ statement_index: 2, code: '42601' }] });
    expect(await run({ query: `SELECT count(*) AS n, to_regclass('${schema}.never') AS t FROM ${schema}.items` })).toMatchObject({
      rows: [{ n: 0, t: null }],
    });
  });

  it('keeps earlier statements with transaction: false', async () => {
    await run({ command: `DELETE FROM ${schema}.items` });
    await callFailure(
      run({ transaction: false, command: `INSERT INTO ${schema}.items (id) VALUES (1); INSERT INTO ${schema}.items (id) VALUES (1)` }),
    );
    expect((await run({ query: `SELECT count(*) AS n FROM ${schema}.items` })).rows).toEqual([{ n: 1 }]);
  });

  it('fails with SQLSTATE P0001 and the raised message when a DO block raises', async () => {
    const err = await callFailure(run({ command: `SELECT 1; DO $$ BEGIN RAISE EXCEPTION 'Expected % pairs, got %', 4, 3; END $$;` }));
    expect(err.info).toMatchObject({ kind: 'db', code: 'P0001' });
    expect(err.info.message).toContain('Expected 4 pairs, got 3');
  });

  it('classifies a unique violation as a non-retryable db error', async () => {
    await run({ command: `DELETE FROM ${schema}.items; INSERT INTO ${schema}.items (id) VALUES (7)` });
    const err = await callFailure(run({ command: `INSERT INTO ${schema}.items (id) VALUES (7)` }));
    expect(err.info).toMatchObject({ kind: 'db', code: '23505', retryable: false });
  });

  it('accepts libpq-style keys, a dsn credential, the credential alias, a connection DSN and a commands list', async () => {
    const query = 'SELECT 1 AS one';
    expect(((await tool.run({ auth: 'pg_libpq', query }, context())) as Record<string, unknown>).rows).toEqual([{ one: 1 }]);
    expect(((await tool.run({ credential: 'pg_dsn', query }, context())) as Record<string, unknown>).rows).toEqual([{ one: 1 }]);
    expect(
      ((await tool.run({ auth: { type: 'postgres', credential: 'pg_noetl' }, query }, context())) as Record<string, unknown>).rows,
    ).toEqual([{ one: 1 }]);
    expect(((await tool.run({ connection: DATABASE_URL, query }, context())) as Record<string, unknown>).rows).toEqual([{ one: 1 }]);
    const list = (await tool.run(
      { connection: DATABASE_URL, commands: ['SELECT 1 AS a; SELECT 2 AS b', 'SELECT 3 AS c'] },
      context(),
    )) as Record<string, unknown>;
    expect(list).toMatchObject({ statement_count: 3, rows: [{ c: 3 }], command_0: { rows: [{ a: 1 }] }, command_1: { rows: [{ b: 2 }] } });
  });

  it('returns an empty success for SQL made only of comments', async () => {
    expect(await run({ command: '-- nothing to do;\n/* really */' })).toEqual({
      status: 'success',
      statement_count: 0,
      rows: [],
      row_count: 0,
      columns: [],
    });
  });

  it('runs a single statement outside a transaction block (VACUUM)', async () => {
    expect(await run({ command: `VACUUM ${schema}.items;` })).toMatchObject({ status: 'success', statement_count: 1 });
  });

  it('rejects params with several statements', async () => {
    const err = await callFailure(run({ command: 'SELECT $1; SELECT 2', params: [1] }));
    expect(err.info).toMatchObject({ kind: 'internal', code: 'INVALID_CONFIG' });
  });

  it('reports a refused connection as a retryable connection error without the password', async () => {
    const err = await callFailure(tool.run({ auth: 'pg_refused', query: 'SELECT 1' }, context()));
    expect(err.info).toMatchObject({ kind: 'connection', retryable: true });
    expect(err.info.message).not.toContain('s3cret-value');
  });

  it('cancels a running statement when the signal aborts and keeps the pool usable', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = callFailure(
      run({ command: `INSERT INTO ${schema}.items (id) VALUES (99); SELECT pg_sleep(10)` }, context(controller.signal)),
    );
    setTimeout(() => controller.abort(), 200);
    const err = await pending;
    expect(err.info.kind).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await run({ query: `SELECT count(*) AS n FROM ${schema}.items WHERE id = 99` })).rows).toEqual([{ n: 0 }]);
  });

  describe('when the server drops the connection (issue 15 defect 4)', () => {
    let admin: Client;

    beforeAll(async () => {
      admin = new Client({ connectionString: DATABASE_URL });
      admin.on('error', () => undefined);
      await admin.connect();
    });

    afterAll(async () => {
      await admin?.end();
    });

    /** Terminates the backends running a statement that contains `tag`, once one is running. */
    const terminateRunning = (tag: string): Promise<number> =>
      waitFor(
        async () => {
          const { rows } = await admin.query<{ n: number }>(
            'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()',
            [`%${tag}%`],
          );
          return (rows[0]?.n ?? 0) > 0 ? rows[0]!.n : false;
        },
        { timeoutMs: 5_000, description: `a backend running ${tag}` },
      );

    it('fails the step with a retryable connection error on pg_terminate_backend mid-statement, and the process lives on', async () => {
      const tag = `noetl_terminate_${randomBytes(4).toString('hex')}`;
      const pending = callFailure(run({ query: `SELECT pg_sleep(30) AS ${tag}` }));
      await terminateRunning(tag);
      const err = await pending;
      expect(err.info).toMatchObject({ kind: 'connection', retryable: true, code: '57P01' });
      // The socket's end arrives after the statement's error: nothing may be left without an error listener.
      await new Promise((resolve) => setImmediate(resolve));
      expect((await run({ query: 'SELECT 1 AS one' })).rows).toEqual([{ one: 1 }]);
    });

    it('fails the step with a retryable connection error when the backend dies inside a transaction', async () => {
      const tag = `noetl_terminate_${randomBytes(4).toString('hex')}`;
      const pending = callFailure(run({ command: `INSERT INTO ${schema}.items (id) VALUES (501); SELECT pg_sleep(30) AS ${tag}` }));
      await terminateRunning(tag);
      expect((await pending).info).toMatchObject({ kind: 'connection', retryable: true });
      expect((await run({ query: `SELECT count(*) AS n FROM ${schema}.items WHERE id = 501` })).rows).toEqual([{ n: 0 }]);
    });

    it('survives its connections being terminated between the statements of a transaction, every failure a retryable connection error', async () => {
      // The window between two statements is a few microseconds wide: hammer it (before the fix, an
      // unhandled 'error' event on the checked-out client killed the process within ~200 terminations).
      const app = `noetl_churn_${randomBytes(4).toString('hex')}`;
      const connection = `${DATABASE_URL}${DATABASE_URL.includes('?') ? '&' : '?'}application_name=${app}`;
      const kinds = new Set<string>();
      let completed = 0;
      let stop = false;
      const loops = Array.from({ length: 4 }, async () => {
        while (!stop) {
          try {
            await tool.run({ connection, commands: ['SELECT 1', 'SELECT pg_sleep(0.01)', 'SELECT 2'] }, context());
            completed++;
          } catch (err) {
            kinds.add(err instanceof CallError ? `${err.info.kind}:${String(err.info.retryable)}` : String(err));
          }
        }
      });
      for (let round = 0; round < 300; round++) {
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [app]);
        await new Promise((resolve) => setTimeout(resolve, 2 + (round % 7) * 3));
      }
      stop = true;
      await Promise.all(loops);
      expect([...kinds]).toEqual(['connection:true']);
      expect(completed).toBeGreaterThan(0);
      // 300 rounds of a termination and a pause of up to 20 ms: about 5 s on an idle machine, more on a busy one.
    }, 30_000);
  });

  it('fails fast with kind cancelled when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await callFailure(run({ query: 'SELECT 1' }, context(controller.signal)))).info.kind).toBe('cancelled');
  });
});

describe('PostgresTool with a protected database (issue 15 defect 7: playbooks reach the ledger)', () => {
  let ledger: TestDatabase;
  let other: TestDatabase;
  let ledgerClient: Client;
  let tool: PostgresTool;

  beforeAll(async () => {
    [ledger, other] = await Promise.all([createEmptyDatabase(), createEmptyDatabase()]);
    ledgerClient = new Client({ connectionString: ledger.url });
    ledgerClient.on('error', () => undefined);
    await ledgerClient.connect();
    tool = new PostgresTool({
      connectTimeoutMs: 3_000,
      protectedDatabase: {
        identity: () => readDatabaseIdentity(async (sql) => (await ledgerClient.query<Record<string, unknown>>(sql)).rows),
        reason: 'it is the ledger',
      },
    });
  });

  afterAll(async () => {
    await tool?.close();
    await ledgerClient?.end();
    await Promise.all([ledger?.drop(), other?.drop()]);
  });

  /** The ledger's URL with its host, port and scheme spelled differently. */
  const spelled = (change: (url: URL) => void): string => {
    const url = new URL(ledger.url);
    change(url);
    return url.toString();
  };

  it.each([
    ['as given', (): string => ledger.url],
    ['through localhost', (): string => spelled((u) => (u.hostname = 'localhost'))],
    ['through the machine name', (): string => spelled((u) => (u.hostname = hostname()))],
    ['with the default port left out', (): string => spelled((u) => (u.port = ''))],
    [
      'as postgresql:// with extra parameters',
      (): string =>
        spelled((u) => {
          u.protocol = 'postgresql:';
          u.search = '?application_name=innocent&sslmode=disable';
        }),
    ],
    [
      'through the unix socket',
      (): string => `postgres://${new URL(ledger.url).username || 'postgres'}@/${ledger.name}?host=/var/run/postgresql`,
    ],
  ])('refuses a DSN %s, with a clear non-retryable error and no statement run', async (_how, dsn) => {
    const err = await callFailure(tool.run({ connection: dsn(), command: 'CREATE TABLE reached_the_ledger (x int)' }, context()));
    expect(err.info).toMatchObject({ kind: 'auth', code: 'PROTECTED_DATABASE', retryable: false });
    expect(err.info.message).toContain(`refusing to connect to database "${ledger.name}": it is the ledger`);
    const { rows } = await ledgerClient.query("SELECT to_regclass('reached_the_ledger') AS t");
    expect(rows).toEqual([{ t: null }]);
  });

  it('refuses the ledger named by credential fields (host, port as text, user, database)', async () => {
    const url = new URL(ledger.url);
    const ctx = testToolContext({ sneaky: { host: 'LOCALHOST', port: '5432', user: url.username || 'postgres', dbname: ledger.name } });
    expect((await callFailure(tool.run({ auth: 'sneaky', query: 'SELECT 1' }, ctx))).info.code).toBe('PROTECTED_DATABASE');
  });

  it('runs statements on another database of the same server', async () => {
    expect(await tool.run({ connection: other.url, query: 'SELECT current_database() AS db' }, context())).toMatchObject({
      rows: [{ db: other.name }],
    });
  });
});

/**
 * Issue 25 item 2: from another database of the ledger's cluster, a superuser
 * reached the ledger anyway (`CREATE EXTENSION dblink` then
 * `dblink_exec('dbname=<ledger>', 'SET LOCAL session_replication_role = replica; DELETE ...')`,
 * or `COPY ... FROM PROGRAM 'psql ...'`). A role with power over the cluster is
 * now refused there before any statement runs; ordinary roles keep working.
 */
describe('PostgresTool on the cluster of a protected database', () => {
  let ledger: TestDatabase;
  let other: TestDatabase;
  let ledgerClient: Client;
  let tool: PostgresTool;
  const suffix = randomBytes(4).toString('hex');
  const roles = { ordinary: `noetl_t_plain_${suffix}`, program: `noetl_t_program_${suffix}`, granted: `noetl_t_granted_${suffix}` };

  /** `other`'s URL as `role` (the test cluster trusts loopback). */
  const as = (role: string): string => {
    const url = new URL(other.url);
    url.username = role;
    url.password = '';
    return url.toString();
  };

  beforeAll(async () => {
    [ledger, other] = await Promise.all([createEmptyDatabase(), createEmptyDatabase()]);
    ledgerClient = new Client({ connectionString: ledger.url });
    ledgerClient.on('error', () => undefined);
    await ledgerClient.connect();
    await ledgerClient.query(
      `CREATE ROLE ${roles.ordinary} LOGIN; CREATE ROLE ${roles.program} LOGIN IN ROLE pg_execute_server_program; CREATE ROLE ${roles.granted} LOGIN`,
    );
    await ledgerClient.query(`GRANT TEMPORARY ON DATABASE ${ledger.name} TO ${roles.granted}`);
    tool = new PostgresTool({
      connectTimeoutMs: 3_000,
      protectedDatabase: {
        identity: () => readDatabaseIdentity(async (sql) => (await ledgerClient.query<Record<string, unknown>>(sql)).rows),
        reason: 'it is the ledger',
        cluster: { hint: 'use a role without that power' },
      },
    });
  });

  afterAll(async () => {
    await tool?.close();
    await ledgerClient?.end();
    await Promise.all([ledger?.drop(), other?.drop()]);
    await withAdminClient((admin) =>
      admin.query(`DROP ROLE IF EXISTS ${roles.ordinary}; DROP ROLE IF EXISTS ${roles.program}; DROP ROLE IF EXISTS ${roles.granted}`),
    );
  });

  const refusal = async (connection: string, command: string) => (await callFailure(tool.run({ connection, command }, context()))).info;

  it('refuses the superuser CREATE EXTENSION dblink and COPY FROM PROGRAM on another database, running neither', async () => {
    const superuser = new URL(ledger.url).username || 'postgres';
    for (const command of ['CREATE EXTENSION dblink', "CREATE TABLE reached (line text); COPY reached FROM PROGRAM 'echo reached'"]) {
      const info = await refusal(other.url, command);
      expect(info).toMatchObject({ kind: 'auth', code: 'PROTECTED_DATABASE', retryable: false });
      expect(info.message).toBe(
        `postgres: refusing to connect as role "${superuser}" to the cluster of this runtime's ledger: it is a superuser; it may run server programs (pg_execute_server_program); ` +
          "it may read or write the server's files (pg_read_server_files, pg_write_server_files); it may create and grant roles (CREATEROLE); it is a replication role; " +
          "it holds a privilege on the ledger's database (use a role without that power)",
      );
    }
    const check = new Client({ connectionString: other.url });
    await check.connect();
    try {
      expect(
        (
          await check.query(
            "SELECT to_regclass('reached') AS t, (SELECT count(*)::int FROM pg_extension WHERE extname = 'dblink') AS dblink",
          )
        ).rows,
      ).toEqual([{ t: null, dblink: 0 }]);
    } finally {
      await check.end();
    }
  });

  it('refuses a role that may run server programs, and one granted a privilege on the ledger database', async () => {
    expect((await refusal(as(roles.program), 'SELECT 1')).message).toContain(
      `as role "${roles.program}" to the cluster of this runtime's ledger: it may run server programs`,
    );
    expect((await refusal(as(roles.granted), 'SELECT 1')).message).toContain(
      `as role "${roles.granted}" to the cluster of this runtime's ledger: it holds a privilege on the ledger's database`,
    );
  });

  it('runs an ordinary role on another database of the cluster, and still refuses it the ledger itself', async () => {
    expect(await tool.run({ connection: as(roles.ordinary), query: 'SELECT current_user AS who' }, context())).toMatchObject({
      rows: [{ who: roles.ordinary }],
    });
    const ledgerAsOrdinary = new URL(ledger.url);
    ledgerAsOrdinary.username = roles.ordinary;
    expect((await refusal(ledgerAsOrdinary.toString(), 'SELECT 1')).message).toContain(
      `refusing to connect to database "${ledger.name}": it is the ledger`,
    );
  });
});
