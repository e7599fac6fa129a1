import { Database } from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { DatabaseClock } from './database-clock';

describe('DatabaseClock', () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await Database.connect(database.url);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const dbNow = async (): Promise<number> =>
    Number((await db.query<{ ms: string }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS ms'))[0]!.ms);

  it.each([
    ['minutes behind', -7 * 60_000],
    ['minutes ahead', 9 * 60_000],
  ])('reads the database clock on a host whose clock runs %s', async (_label, skewMs) => {
    const clock = new DatabaseClock(() => Date.now() + skewMs);
    expect(Math.abs(clock.now().getTime() - (await dbNow()))).toBeGreaterThan(60_000);
    await clock.sync(db);
    expect(Math.abs(clock.now().getTime() - (await dbNow()))).toBeLessThan(1_000);
  });
});
