import { buildEvent, EventType, SnowflakeIds } from '@noetl/event-kernel';
import { Database, PgEventStore, preparedStatements, readTail, TAIL_START } from '@noetl/storage';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const ids = new SnowflakeIds(12, () => Date.now());
const TENANT = { tenantId: 'tenant-a', organizationId: 'org-a' };

function ctxUpdated(executionId: string, n: number) {
  return buildEvent(
    { type: EventType.CtxUpdated, executionId, payload: { set: { n } } },
    { ids, now: () => new Date(), producer: 'ledger-tail.int-spec', ...TENANT },
  );
}

/** Every plan node of an EXPLAIN (FORMAT JSON) plan. */
function nodesOf(plan: { Plans?: unknown[] } & Record<string, unknown>): Record<string, unknown>[] {
  return [plan, ...(plan.Plans ?? []).flatMap((child) => nodesOf(child as typeof plan))];
}

describe('the ledger tail', () => {
  let testDb: TestDatabase;
  let db: Database;
  let store: PgEventStore;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await Database.connect(testDb.url, { poolSize: 4 });
    store = new PgEventStore(db);
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('holds back an event committed after a transaction still running, and gives it once that one ends', async () => {
    const executionId = ids.next();
    const older = new Client({ connectionString: testDb.url });
    await older.connect();
    try {
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      const [appended] = await store.append([ctxUpdated(executionId, 1)]);
      const eventId = appended!.event.event_id;

      const during = await readTail(db, TAIL_START, 100, TENANT);
      expect(during.events.map(({ event }) => event.event_id)).not.toContain(eventId);
      expect(during.heldBack).toBe(true);

      await older.query('ROLLBACK');
      const after = await readTail(db, TAIL_START, 100, TENANT);
      expect(after.events.map(({ event }) => event.event_id)).toContain(eventId);
      expect(after.heldBack).toBe(false);
    } finally {
      await older.end();
    }
  });

  it('asks whether anything is held back at the end of the tail index, not by a scan of the ledger', async () => {
    const executionId = ids.next();
    for (let n = 0; n < 50; n++) await store.append([ctxUpdated(executionId, n)]);
    await db.query('ANALYZE noetl.event');
    // A caught-up tail (nothing held back) is the common case of every poll: the check must not read every event.
    const heldBack = preparedStatements().filter((statement) => statement.text.includes('held_back'));
    expect(heldBack).toHaveLength(1);
    const [row] = await db.query<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${heldBack[0]!.text}`,
    );
    const onEvent = nodesOf(row!['QUERY PLAN'][0].Plan).filter((node) => node['Relation Name'] === 'event');
    expect(onEvent.length).toBeGreaterThan(0);
    for (const node of onEvent) {
      expect(node['Node Type']).not.toBe('Seq Scan');
      expect(node['Actual Rows']).toBeLessThanOrEqual(1);
    }
  });
});
