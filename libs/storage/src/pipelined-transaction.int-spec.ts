import '@noetl/runtime';
import { Database, enqueueWrite, prepared, preparedStatements, type Queryable } from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const ECHO = prepared(
  'SELECT $1::text AS t, $2::bigint AS b, $3::timestamptz AS at, $4::text[] AS list, $5::bytea AS bytes, $6::jsonb AS doc, $7::boolean AS yes, $8::int AS none',
);
const BUMP = prepared('UPDATE pipelined SET n = n + $2 WHERE id = $1');

/**
 * Database.transaction's statement pipeline (pipelined-transaction.ts): the
 * writes it queues go with the next statement in one message, in order, with
 * their parameters written as literals; what they do is what they would have
 * done one by one.
 */
describe('a pipelined transaction', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await Database.connect(testDb.url);
    await db.query('CREATE TABLE pipelined (id int PRIMARY KEY, n int NOT NULL)');
  });

  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  const roundTripsOf = async <T>(fn: (q: Queryable) => Promise<T>): Promise<{ value: T; roundTrips: number }> => {
    const before = db.counts.statements;
    const value = await db.transaction(fn);
    return { value, roundTrips: db.counts.statements - before };
  };

  it('sends queued writes, in order, with the next statement that reads, and the rest with COMMIT', async () => {
    await db.query('INSERT INTO pipelined VALUES (1, 0)');
    const { value, roundTrips } = await roundTripsOf(async (q) => {
      await enqueueWrite(q, BUMP, [1, 5]);
      await enqueueWrite(q, BUMP, [1, 2]);
      const [row] = await q.query<{ n: number }>(prepared('SELECT n FROM pipelined WHERE id = $1'), [1]);
      await enqueueWrite(q, BUMP, [1, 100]);
      return row!.n;
    });

    // The select saw both writes before it; the last went with COMMIT.
    expect(value).toBe(7);
    expect((await db.query<{ n: number }>('SELECT n FROM pipelined WHERE id = 1'))[0]!.n).toBe(107);
    // BEGIN + two writes + the select in one message, then the write + COMMIT (the statements' PREPAREs aside, once per connection).
    expect(roundTrips).toBeLessThanOrEqual(2 + 2);
  });

  it('writes every kind of parameter as the literal pg would have sent', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const values = [
      "it's a \\ back\\slash",
      '9007199254740993',
      at,
      ['a,b', 'q"uote', 'back\\', null],
      Buffer.from([0, 1, 254, 255]),
      { k: "v'\\" },
      true,
      null,
    ];
    const [row] = await db.transaction((q) => q.query<Record<string, unknown>>(ECHO, values));
    expect(row).toEqual({
      t: values[0],
      b: '9007199254740993',
      at,
      list: ['a,b', 'q"uote', 'back\\', null],
      bytes: Buffer.from([0, 1, 254, 255]),
      doc: { k: "v'\\" },
      yes: true,
      none: null,
    });
  });

  it('sends a statement whose parameters are larger than an inline literal should be as parameters, after the writes queued before it', async () => {
    await db.query('INSERT INTO pipelined VALUES (4, 0)');
    const doc = { text: "it's \\ ".repeat(10_000) };
    const { value } = await roundTripsOf(async (q) => {
      await enqueueWrite(q, BUMP, [4, 1]);
      const [row] = await q.query<Record<string, unknown>>(
        prepared('SELECT $1::jsonb AS doc, (SELECT n FROM pipelined WHERE id = $2) AS n'),
        [doc, 4],
      );
      return row;
    });
    expect(value).toEqual({ doc, n: 1 });
  });

  it('fails the transaction at the statement a failing queued write went with, and rolls all of it back', async () => {
    await db.query('INSERT INTO pipelined VALUES (2, 0)');
    await expect(
      db.transaction(async (q) => {
        await enqueueWrite(q, BUMP, [2, 1]);
        await enqueueWrite(q, prepared('INSERT INTO pipelined VALUES ($1, $2)'), [2, 0]);
        await q.query('SELECT 1');
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await db.query<{ n: number }>('SELECT n FROM pipelined WHERE id = 2'))[0]!.n).toBe(0);

    // The connections and their prepared statements serve the next transactions as before.
    await db.transaction((q) => enqueueWrite(q, BUMP, [2, 3]));
    expect((await db.query<{ n: number }>('SELECT n FROM pipelined WHERE id = 2'))[0]!.n).toBe(3);
  });

  it('prepares every statement the runtime prepares, by SQL PREPARE, against the migrated schema', async () => {
    const statements = preparedStatements().filter((statement) => statement.text.includes('noetl.'));
    expect(statements.length).toBeGreaterThan(15);
    const failures: string[] = [];
    await db
      .transaction(async (q) => {
        for (const statement of statements) {
          await q
            .query(`PREPARE check_${statement.name} AS ${statement.text}`)
            .catch((error: unknown) => failures.push(`${statement.text.slice(0, 80)}: ${String(error)}`));
        }
      })
      .catch(() => undefined);
    expect(failures).toEqual([]);
  });

  it('runs a queued write at once outside a transaction', async () => {
    await db.query('INSERT INTO pipelined VALUES (3, 0)');
    await enqueueWrite(db, BUMP, [3, 4]);
    expect((await db.query<{ n: number }>('SELECT n FROM pipelined WHERE id = 3'))[0]!.n).toBe(4);
  });
});
