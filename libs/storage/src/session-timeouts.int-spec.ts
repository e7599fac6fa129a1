import { Database, isLockNotAvailable } from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { waitFor } from '../../../test/support/wait-for';

const LOCK = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))';
const TRY_LOCK = 'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got';

/**
 * Issue 15 defect 5: a stopped process kept its open transactions, and the
 * advisory locks in them, for as long as it was stopped; the healthy process
 * waited on them without end. The runtime's sessions now carry
 * `idle_in_transaction_session_timeout` and `lock_timeout` (here short, so
 * the spec is quick).
 */
describe('the runtime pool bounds idle transactions and lock waits', () => {
  let testDatabase: TestDatabase;
  let db: Database;
  let other: Database;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    db = await Database.connect(testDatabase.url, { sessions: { idleInTransactionMs: 400, lockTimeoutMs: 300 } });
    other = await Database.connect(testDatabase.url, { poolSize: 2 });
  });
  afterAll(async () => {
    await db?.close();
    await other?.close();
    await testDatabase?.drop();
  });

  it('sets both on every session', async () => {
    const [settings] = await db.query<{ idle: string; lock: string }>(
      `SELECT current_setting('idle_in_transaction_session_timeout') AS idle, current_setting('lock_timeout') AS lock`,
    );
    expect(settings).toEqual({ idle: '400ms', lock: '300ms' });
  });

  it('ends a transaction left idle (a stopped process): its lock is free again, it fails, and the pool goes on', async () => {
    let resume!: () => void;
    const stopped = new Promise<void>((resolve) => (resume = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const held = db.transaction(async (q) => {
      await q.query(LOCK, ['stream-a']);
      locked();
      await stopped; // the process "stops" here, in the middle of its transaction
      await q.query('SELECT 1');
    });
    held.catch(() => undefined);
    await isLocked;
    // Another session gets the lock once the server has ended the idle one (no wait without end).
    await waitFor(
      async () => {
        const [row] = await other.query<{ got: boolean }>(TRY_LOCK, ['stream-a']);
        if (row?.got) await other.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', ['stream-a']);
        return row?.got === true;
      },
      { timeoutMs: 5_000, intervalMs: 50, description: 'the idle transaction to be ended and its lock freed' },
    );
    resume();
    await expect(held).rejects.toThrow();
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('fails a statement that waits too long for a lock with lock_not_available, and the pool goes on', async () => {
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // A busy (not idle) holder: it keeps the lock while its statement runs.
    const holder = other.transaction(async (q) => {
      await q.query(LOCK, ['stream-b']);
      locked();
      await q.query('SELECT pg_sleep(0.8)');
      await holding;
    });
    await isLocked;
    const waiter = db.transaction((q) => q.query(LOCK, ['stream-b']));
    const error = await waiter.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    release();
    await holder;
    expect(isLockNotAvailable(error)).toBe(true);
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
