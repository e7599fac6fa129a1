import { buildEvent, EventType, SnowflakeIds } from '@noetl/event-kernel';
import { Database, OutboxRepository, PgEventStore } from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const ids = new SnowflakeIds(12, () => Date.now());

describe('OutboxRepository', () => {
  let testDb: TestDatabase;
  let db: Database;
  let store: PgEventStore;
  let outbox: OutboxRepository;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await Database.connect(testDb.url, { poolSize: 4 });
    store = new PgEventStore(db);
    outbox = new OutboxRepository(db, { tenantId: 't', organizationId: 'o' });
  });

  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  async function appendEvents(n: number): Promise<string[]> {
    const executionId = ids.next();
    const context = { ids, now: () => new Date(), producer: 'outbox.int-spec', tenantId: 't', organizationId: 'o' };
    const events = Array.from({ length: n }, (_, i) => buildEvent({ type: EventType.CtxUpdated, executionId, payload: { set: { i } } }, context));
    return (await store.append(events)).map((r) => r.event.event_id);
  }

  it('hands rows locked by one publisher to no other, and marks them published', async () => {
    const eventIds = await appendEvents(4);

    let other: string[] = [];
    const claimed = await db.transaction(async (q) => {
      const mine = await outbox.claimUnpublished(2, q);
      // A second publisher, in its own transaction, skips the locked rows.
      other = await db.transaction(async (q2) => (await outbox.claimUnpublished(10, q2)).map((m) => m.eventId));
      await outbox.markPublished(
        mine.map((m) => m.outboxId),
        q,
      );
      return mine;
    });

    expect(claimed.map((m) => m.eventId)).toEqual(eventIds.slice(0, 2));
    expect(claimed[0]).toMatchObject({ subject: expect.stringMatching(/^noetl\.events\.t\.o\.\d+$/), eventType: EventType.CtxUpdated });
    expect(claimed[0]!.envelope.event_id).toBe(eventIds[0]);
    expect(other).toEqual(eventIds.slice(2));
    await db.transaction(async (q) => {
      expect((await outbox.claimUnpublished(10, q)).map((m) => m.eventId)).toEqual(eventIds.slice(2));
    });
    await outbox.publishPending(10, async () => undefined);
  });

  it('leaves rows unpublished and counts the attempt when publishing fails', async () => {
    const [eventId] = await appendEvents(1);
    const failure = new Error('bus down');

    await expect(
      outbox.publishPending(10, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);

    const [row] = await db.query<{ published_at: Date | null; attempts: number }>(
      'SELECT published_at, attempts FROM noetl.outbox WHERE event_id = $1',
      [eventId],
    );
    expect(row).toEqual({ published_at: null, attempts: 1 });

    const published: string[] = [];
    expect(await outbox.publishPending(10, async (messages) => void published.push(...messages.map((m) => m.eventId)))).toBe(1);
    expect(published).toEqual([eventId]);
    expect(await outbox.publishPending(10, async () => undefined)).toBe(0);
  });
});
