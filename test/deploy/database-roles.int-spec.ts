import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { ledgerBypass } from '../../libs/storage/src/ledger-bypass';
import type { Queryable } from '../../libs/storage/src/database';
import { migrate } from '../../libs/storage/src/migrate';
import { runCli } from '../support/cli-server-process';
import { createEmptyDatabase, type TestDatabase } from '../support/test-database';

// A migration of an empty database and one `noetl run`.
jest.setTimeout(60_000);

const INIT_SCRIPT = join(__dirname, '..', '..', 'docker', 'postgres-init.sh');
const hello = join(__dirname, '..', '..', 'examples', 'hello.yaml');

/** The URL of `database` as `user` (the test cluster trusts loopback, so the passwords are not checked here). */
const as = (user: string, database: TestDatabase): string => {
  const url = new URL(database.url);
  url.username = user;
  return url.toString();
};

/**
 * docker/postgres-init.sh, the compose stack's database roles, run against
 * a real cluster: the owner migrates, the runtime runs a playbook, and the
 * runtime cannot change the schema or the ledger's past.
 */
describe('the compose database roles (docker/postgres-init.sh)', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createEmptyDatabase();
    const admin = new URL(database.url);
    for (let run = 0; run < 2; run++) {
      const init = spawnSync('sh', [INIT_SCRIPT], {
        encoding: 'utf8',
        env: {
          ...process.env,
          POSTGRES_USER: decodeURIComponent(admin.username) || 'postgres',
          POSTGRES_DB: database.name,
          PGHOST: admin.hostname,
          PGPORT: admin.port || '5432',
          NOETL_OWNER_PASSWORD: 'owner-secret',
          NOETL_APP_PASSWORD: 'app-secret',
        },
      });
      expect({ run, status: init.status, stderr: init.stderr }).toEqual({ run, status: 0, stderr: '' });
    }
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('lets the owner migrate and the runtime run a playbook, as neither superuser', async () => {
    await migrate(as('noetl_owner', database), 'up');
    const run = await runCli(['run', hello, '--json'], { DATABASE_URL: as('noetl_app', database) });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const check = new Client({ connectionString: database.url });
    await check.connect();
    try {
      const roles = await check.query<{ rolname: string; rolsuper: boolean; rolcreaterole: boolean }>(
        "SELECT rolname, rolsuper, rolcreaterole FROM pg_roles WHERE rolname IN ('noetl_owner', 'noetl_app') ORDER BY rolname",
      );
      expect(roles.rows).toEqual([
        { rolname: 'noetl_app', rolsuper: false, rolcreaterole: false },
        { rolname: 'noetl_owner', rolsuper: false, rolcreaterole: false },
      ]);
      expect((await check.query("SELECT count(*)::int AS n FROM noetl.event WHERE event_type = 'execution.completed'")).rows).toEqual([
        { n: 1 },
      ]);
    } finally {
      await check.end();
    }
  });

  it('finds the power to bypass the ledger triggers in the superuser and the owner, and none in the runtime role', async () => {
    const bypassOf = async (url: string) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        return await ledgerBypass({
          query: async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows,
        } as unknown as Queryable);
      } finally {
        await client.end();
      }
    };
    expect(await bypassOf(database.url)).toMatch(/is a superuser/);
    expect(await bypassOf(as('noetl_owner', database))).toBe(
      'its role "noetl_owner" owns noetl.event, and an owner may disable its triggers',
    );
    expect(await bypassOf(as('noetl_app', database))).toBeUndefined();
  });

  it('refuses the runtime DDL and any change to a past event', async () => {
    const app = new Client({ connectionString: as('noetl_app', database) });
    await app.connect();
    try {
      await expect(app.query('CREATE TABLE noetl.intruder (id int)')).rejects.toThrow('permission denied for schema noetl');
      await expect(app.query('DROP TRIGGER IF EXISTS event_append_only ON noetl.event')).rejects.toThrow('must be owner of relation event');
      await expect(app.query("UPDATE noetl.event SET payload = '{}'")).rejects.toThrow(/append-only|permission denied/);
      await expect(app.query('SET session_replication_role = replica')).rejects.toThrow('permission denied');
    } finally {
      await app.end();
    }
  });
});
