import { Client } from 'pg';
import { Database } from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { waitFor } from '../../../test/support/wait-for';

interface RawPool {
  connect(): Promise<{
    query(sql: string): Promise<{ rows: { pid: number }[] }>;
    release(destroy?: boolean): void;
    on(event: 'end', listener: () => void): void;
  }>;
}

/**
 * A client taken from the runtime's pool, before anything listens for its
 * errors (the moment between pg-pool handing it out and TypeORM's query
 * runner taking it), whose backend is terminated: the process must not die
 * of an unhandled `error` event (the chaos harness saw the api exit).
 */
describe('the runtime pool and terminated backends', () => {
  let testDatabase: TestDatabase;
  let db: Database;
  let admin: Client;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    db = await Database.connect(testDatabase.url, { poolSize: 2 });
    admin = new Client({ connectionString: testDatabase.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await db?.close();
    await testDatabase?.drop();
  });

  it('survives pg_terminate_backend on a client taken out of the pool, and goes on answering queries', async () => {
    const pool = (db.dataSource.driver as unknown as { master: RawPool }).master;
    const client = await pool.connect();
    const [{ pid }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
    let ended = false;
    client.on('end', () => (ended = true));
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor(async () => ended, { timeoutMs: 5_000, description: 'the terminated client to end' });
    client.release(true);
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
