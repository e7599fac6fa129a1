import { Database, isLockNotAvailable, isQueryTimeout } from '@noetl/storage';
import { TcpProxy } from '../../../test/chaos/tcp-proxy';
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

/**
 * Issue 29, network-partition: a connection whose packets a partition
 * swallows (no reset, no FIN) never answers. A statement on it fails after
 * the pool's query timeout, and the connection is closed rather than given
 * back: on a pool of one, a connection given back with its statement still
 * in flight would make every later statement wait behind it.
 */
describe('the runtime pool closes a connection whose statement went unanswered', () => {
  let testDatabase: TestDatabase;
  let proxy: TcpProxy;
  let db: Database;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    const url = new URL(testDatabase.url);
    proxy = await TcpProxy.start(Number(url.port || 5432), url.hostname);
    url.host = `127.0.0.1:${proxy.port}`;
    db = await Database.connect(url.toString(), {
      poolSize: 1,
      connectTimeoutMs: 2_000,
      sessions: { idleInTransactionMs: 10_000, lockTimeoutMs: 5_000, queryTimeoutMs: 1_000 },
    });
  });
  afterEach(() => proxy.heal());
  afterAll(async () => {
    await db?.close();
    await proxy?.close();
    await testDatabase?.drop();
  });

  /** The client closed its end of the dead connection (the proxy reads the close once it reads again, after heal). */
  const closedAtTheClient = (): Promise<unknown> =>
    waitFor(async () => proxy.stranded === 0, {
      timeoutMs: 5_000,
      intervalMs: 20,
      description: 'the dead connection closed by its client',
    });

  /** Cuts the link under a connection the pool holds, runs `statement`, and heals the link with that connection dead for good. */
  async function unansweredOnce(statement: () => Promise<unknown>, on: { query: Database['query'] } = db): Promise<unknown> {
    expect(await on.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    proxy.blackhole();
    const failure = await statement().then(
      () => undefined,
      (error: unknown) => error,
    );
    proxy.heal({ stalled: 'dead' });
    return failure;
  }

  it('a pooled statement: it fails as a query timeout, its connection is closed, and the next statement gets a new one', async () => {
    const failure = await unansweredOnce(() => db.query('SELECT 2 AS two'));
    expect(isQueryTimeout(failure)).toBe(true);
    await closedAtTheClient();
    expect(await db.query('SELECT 3 AS three')).toEqual([{ three: 3 }]);
  });

  it('a transaction: it fails as a query timeout without waiting on a ROLLBACK, and the pool goes on', async () => {
    const failure = await unansweredOnce(() => db.transaction((q) => q.query('SELECT 2 AS two')));
    expect(isQueryTimeout(failure)).toBe(true);
    await closedAtTheClient();
    expect(await db.transaction((q) => q.query('SELECT 3 AS three'))).toEqual([{ three: 3 }]);
  });

  it('a dedicated connection: its statement fails as a query timeout, it is lost, and its release gives the pool nothing broken', async () => {
    const dedicated = await db.dedicated('noetl partition spec');
    const failure = await unansweredOnce(() => dedicated.query('SELECT 2 AS two'), dedicated);
    expect(isQueryTimeout(failure)).toBe(true);
    await dedicated.lost;
    await dedicated.release();
    await closedAtTheClient();
    expect(await db.query('SELECT 3 AS three')).toEqual([{ three: 3 }]);
  });
});
