import { loadConfig } from '@noetl/config';
import { ledgerBypass } from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { DatabaseConnection } from './database.module';

/**
 * The runtime role made the default (issue 25 item 1): given the cluster
 * superuser's URL, as a developer's local setup and the test services do, the
 * runtime migrates as that login and then works as `noetl_app`, which
 * cannot switch the ledger's triggers off nor change a past event.
 */
describe('DatabaseConnection with a superuser DATABASE_URL', () => {
  let database: TestDatabase;
  let connection: DatabaseConnection | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterEach(async () => {
    await connection?.onApplicationShutdown();
    connection = undefined;
  });

  afterAll(async () => {
    await database?.drop();
  });

  const open = async (env: Record<string, string> = {}): Promise<DatabaseConnection> => {
    connection = await DatabaseConnection.open(loadConfig({ DATABASE_URL: database.url, ...env }));
    return connection;
  };

  it('works as noetl_app on every session of its pool, LISTEN connections and a reset role included', async () => {
    const { database: pool } = await open();
    expect(await pool.query('SELECT current_user AS role, session_user AS login')).toEqual([
      { role: 'noetl_app', login: new URL(database.url).username || 'postgres' },
    ]);
    const dedicated = await pool.dedicated('noetl-test-listener');
    try {
      await dedicated.query('RESET ROLE');
      expect(await dedicated.query('SELECT current_user AS role')).toEqual([{ role: 'noetl_app' }]);
    } finally {
      await dedicated.release();
    }
    expect(await ledgerBypass(pool)).toBeUndefined();
  });

  it('cannot switch the triggers off, nor update, delete or truncate the ledger, nor change the schema', async () => {
    const { database: pool } = await open();
    // It appends, as the runtime does.
    const [appended] = await pool.query<{
      event_id: string;
    }>(`INSERT INTO noetl.event (event_id, tenant_id, organization_id, execution_id, stream_id, stream_version,
        aggregate_type, aggregate_id, event_type, schema_name, schema_version, event_time, producer, payload, checksum)
      VALUES (1, 't', 'o', 1, 'execution:1', 1, 'execution', '1', 'execution.started', 'execution.started', 1, now(), 'test', '{}', 'x') RETURNING event_id::text`);
    const eventId = appended!.event_id;
    await expect(pool.query('SET session_replication_role = replica')).rejects.toThrow(
      'permission denied to set parameter "session_replication_role"',
    );
    await expect(pool.query(`UPDATE noetl.event SET payload = '{}' WHERE event_id = $1::bigint`, [eventId])).rejects.toThrow(
      'permission denied for table event',
    );
    await expect(pool.query('TRUNCATE noetl.event')).rejects.toThrow('permission denied for table event');
    await expect(pool.query(`DELETE FROM noetl.event WHERE event_id = $1::bigint`, [eventId])).rejects.toThrow(
      /append-only|permission denied/,
    );
    await expect(pool.query('ALTER TABLE noetl.event DISABLE TRIGGER event_append_only')).rejects.toThrow('must be owner of table event');
    await expect(pool.query('CREATE TABLE noetl.intruder (id int)')).rejects.toThrow('permission denied for schema noetl');
  });

  it('keeps the login with NOETL_DB_RUNTIME_ROLE=none, which the bypass warning then names', async () => {
    const { database: pool } = await open({ NOETL_DB_RUNTIME_ROLE: 'none' });
    expect(await pool.query('SELECT current_user = session_user AS same')).toEqual([{ same: true }]);
    expect(await ledgerBypass(pool)).toMatch(/is a superuser/);
  });
});
