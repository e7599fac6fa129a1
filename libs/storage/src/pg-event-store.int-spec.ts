import {
  buildEvent,
  envelopeChecksum,
  EventType,
  SnowflakeIds,
  type AnyNewEvent,
  type EventDraft,
  type EventTypeName,
  type NewEvent,
} from '@noetl/event-kernel';
import {
  Database,
  EventKeyTakenError,
  InvalidEventError,
  PgEventStore,
  readTail,
  StreamVersionConflict,
  sqlText,
  TAIL_START,
  type AppendResult,
  type Queryable,
} from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const WRITERS = 20;
const ids = new SnowflakeIds(11, () => Date.now());
const TENANT = { tenantId: 'tenant-a', organizationId: 'org-a' };

function event<T extends EventTypeName>(draft: EventDraft<T>, scope = TENANT): NewEvent<T> {
  return buildEvent(draft, { ids, now: () => new Date(), producer: 'pg-event-store.int-spec', ...scope });
}

function commandIssued(executionId: string, commandId: string, aggregateId = commandId): NewEvent<typeof EventType.CommandIssued> {
  return event({
    type: EventType.CommandIssued,
    executionId,
    commandId,
    step: 'fetch',
    aggregate: { type: 'command', id: aggregateId },
    payload: { command_id: commandId, step: 'fetch', run_id: 'r1', kind: 'http', attempt: 1, max_attempts: 3, spec: { url: 'http://x' } },
  });
}

function ctxUpdated(executionId: string, n: number, extra: Partial<EventDraft<typeof EventType.CtxUpdated>> = {}) {
  return event({ type: EventType.CtxUpdated, executionId, payload: { set: { n } }, ...extra });
}

function terminal(executionId: string, i: number): AnyNewEvent {
  switch (i % 3) {
    case 0:
      return event({ type: EventType.ExecutionCompleted, executionId, payload: { result: { writer: i } } });
    case 1:
      return event({ type: EventType.ExecutionFailed, executionId, payload: { error: { kind: 'test', message: `writer ${i}` } } });
    default:
      return event({ type: EventType.ExecutionCancelled, executionId, payload: { reason: `writer ${i}` } });
  }
}

function loopDone(executionId: string, loopId = ids.next(), results: number[] = []) {
  return event({
    type: EventType.LoopDone,
    executionId,
    loopId,
    payload: { loop_id: loopId, step: 'each', run_id: 'r1', status: 'complete', total: 3, succeeded: 3, failed: 0, results },
  });
}

/** 20 appends at once, each on its own pooled connection. */
function race(append: (i: number) => Promise<AppendResult[]>): Promise<AppendResult[]> {
  return Promise.all(Array.from({ length: WRITERS }, (_, i) => append(i))).then((all) => all.map((results) => results[0]!));
}

describe('PgEventStore', () => {
  let testDb: TestDatabase;
  let db: Database;
  let store: PgEventStore;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await Database.connect(testDb.url, { poolSize: WRITERS });
    store = new PgEventStore(db);
  });

  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  const count = async (sql: string, params: unknown[]): Promise<number> =>
    Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, params))[0]!.n);
  const eventsOf = (executionId: string, type?: string): Promise<number> =>
    type
      ? count('noetl.event WHERE execution_id = $1 AND event_type = $2', [executionId, type])
      : count('noetl.event WHERE execution_id = $1', [executionId]);

  function expectOneWinner(results: AppendResult[]): void {
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(results.filter((r) => r.duplicate)).toHaveLength(WRITERS - 1);
    for (const result of results) expect(result.event).toEqual(results[0]!.event);
  }

  describe('under concurrency', () => {
    it('keeps one command.issued when 20 writers race with the same event', async () => {
      const executionId = ids.next();
      const issued = commandIssued(executionId, ids.next());

      const results = await race(() => store.append([issued]));

      expectOneWinner(results);
      expect(results[0]!.event.event_id).toBe(issued.event_id);
      expect(await eventsOf(executionId, EventType.CommandIssued)).toBe(1);
    });

    it('keeps one command.issued when 20 writers race with their own event ids on their own streams', async () => {
      const executionId = ids.next();
      const commandId = ids.next();

      const results = await race((i) => store.append([commandIssued(executionId, commandId, `${commandId}-${i}`)]));

      expectOneWinner(results);
      expect(await eventsOf(executionId, EventType.CommandIssued)).toBe(1);
      // The losers' streams stay empty: a duplicate consumes no version.
      const versions = await Promise.all(results.map((_, i) => store.streamVersion(`command/${commandId}-${i}`)));
      expect(versions.filter((v) => v === 1)).toHaveLength(1);
      expect(versions.filter((v) => v === 0)).toHaveLength(WRITERS - 1);
    });

    it('keeps one loop.done when 20 writers race', async () => {
      const executionId = ids.next();
      const loopId = ids.next();

      const results = await race((i) => store.append([loopDone(executionId, loopId, [i])]));

      expectOneWinner(results);
      expect(await eventsOf(executionId, EventType.LoopDone)).toBe(1);
    });

    it('keeps one terminal event when 20 writers race with different outcomes', async () => {
      const executionId = ids.next();

      const results = await race((i) => store.append([terminal(executionId, i)]));

      expectOneWinner(results);
      expect(await eventsOf(executionId)).toBe(1);
      expect(await store.streamVersion(`execution/${executionId}`)).toBe(1);
    });

    it('grants an expected version to exactly one of 20 writers that race for it', async () => {
      const executionId = ids.next();
      const streamId = `execution/${executionId}`;

      const settled = await Promise.allSettled(
        Array.from({ length: WRITERS }, (_, i) =>
          store.append([ctxUpdated(executionId, i)], { expectedVersion: { streamId, version: 0 } }),
        ),
      );

      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
      const rejected = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason);
      expect(rejected).toHaveLength(WRITERS - 1);
      for (const error of rejected) {
        expect(error).toBeInstanceOf(StreamVersionConflict);
        expect(error).toMatchObject({ code: 'stream_version_conflict', streamId, expected: 0, actual: 1 });
      }
      expect(await eventsOf(executionId)).toBe(1);
    });

    it('assigns dense stream versions when 20 writers race on one stream', async () => {
      const executionId = ids.next();
      const streamId = `execution/${executionId}`;

      const results = await race((i) => store.append([ctxUpdated(executionId, i)]));

      expect(results.every((r) => !r.duplicate)).toBe(true);
      expect(results.map((r) => r.event.stream_version).sort((a, b) => a - b)).toEqual(Array.from({ length: WRITERS }, (_, i) => i + 1));
      expect((await store.readStream(streamId)).map((e) => e.stream_version)).toEqual(Array.from({ length: WRITERS }, (_, i) => i + 1));
      expect(await store.streamVersion(streamId)).toBe(WRITERS);
    });

    it('keeps versions dense when 20 writers race batches that repeat one shared event', async () => {
      const executionId = ids.next();
      const shared = commandIssued(executionId, ids.next(), executionId);
      const sharedOnExecution = { ...shared, stream_id: `execution/${executionId}`, aggregate_type: 'execution' as const };

      const batches = await Promise.all(
        Array.from({ length: WRITERS }, (_, i) => store.append([sharedOnExecution, ctxUpdated(executionId, i)])),
      );

      expect(batches.filter((b) => !b[0]!.duplicate)).toHaveLength(1);
      const versions = (await store.readStream(`execution/${executionId}`)).map((e) => e.stream_version);
      expect(versions).toEqual(Array.from({ length: WRITERS + 1 }, (_, i) => i + 1));
    });
  });

  describe('appending', () => {
    it('returns the stored envelope, sealed with the injected clock, whose checksum verifies', async () => {
      const ingest = new Date('2026-01-02T03:04:05.678Z');
      const clocked = new PgEventStore(db, () => ingest);
      const executionId = ids.next();
      const started = event({
        type: EventType.ExecutionStarted,
        executionId,
        payload: {
          path: 'demo/hello',
          version: 1,
          catalog_id: ids.next(),
          workload: { n: 1.5, list: [1, 'two', null], nested: { z: 1, a: 2 } },
        },
        meta: { trace: 'abc' },
      });

      const [result] = await clocked.append([started]);

      expect(result!.duplicate).toBe(false);
      expect(result!.event).toEqual({ ...started, stream_version: 1, ingest_time: ingest.toISOString(), checksum: expect.any(String) });
      expect(envelopeChecksum(result!.event)).toBe(result!.event.checksum);
    });

    it('reads back exactly what it appended, in ledger order, with checksums that verify', async () => {
      const executionId = ids.next();
      const batch: AnyNewEvent[] = [
        ctxUpdated(executionId, 1),
        commandIssued(executionId, ids.next()),
        event({ type: EventType.StepEnter, executionId, step: 'a', payload: { step: 'a', run_id: 'r', activation: 1 } }),
        terminal(executionId, 0),
      ];

      const appended = (await store.append(batch)).map((r) => r.event);
      const readBack = [...(await store.readStream(`execution/${executionId}`)), ...(await store.readStream(batch[1]!.stream_id))];

      expect(readBack).toEqual([appended[0], appended[2], appended[3], appended[1]]);
      for (const e of readBack) expect(envelopeChecksum(e)).toBe(e.checksum);
    });

    it('stores event_time in the canonical ISO form so the checksum survives the round trip', async () => {
      const executionId = ids.next();
      const offsetTime = { ...ctxUpdated(executionId, 1), event_time: '2026-03-01T12:00:00+02:00' };

      const [result] = await store.append([offsetTime]);
      const [readBack] = await store.readStream(`execution/${executionId}`);

      expect(result!.event.event_time).toBe('2026-03-01T10:00:00.000Z');
      expect(readBack).toEqual(result!.event);
      expect(envelopeChecksum(readBack!)).toBe(readBack!.checksum);
    });

    it('keeps one holder of an idempotency key and dense streams when 20 writers race batches on their own streams', async () => {
      const key = `shared-${ids.next()}`;
      const executions = Array.from({ length: WRITERS }, () => ids.next());

      // Each batch: the contested key first, then an event of its own. A loser's second event must not sit at version 2.
      const batches = await Promise.all(
        executions.map((executionId) => store.append([ctxUpdated(executionId, 1, { idempotencyKey: key }), ctxUpdated(executionId, 2)])),
      );

      expect(batches.filter(([keyed]) => !keyed!.duplicate)).toHaveLength(1);
      for (const [i, [keyed, own]] of batches.entries()) {
        expect(own!.duplicate).toBe(false);
        expect(own!.event.stream_version).toBe(keyed!.duplicate ? 1 : 2);
        expect(await eventsOf(executions[i]!)).toBe(keyed!.duplicate ? 1 : 2);
      }
    });

    it('numbers the new events of a batch around a duplicate without a gap', async () => {
      const executionId = ids.next();
      const first = ctxUpdated(executionId, 1);
      await store.append([first]);

      const results = await store.append([ctxUpdated(executionId, 2), first, ctxUpdated(executionId, 3)]);

      expect(results.map((r) => [r.duplicate, r.event.stream_version])).toEqual([
        [false, 2],
        [true, 1],
        [false, 3],
      ]);
    });

    it('returns the existing event for a repeated idempotency key and accepts the key in another tenant', async () => {
      const executionId = ids.next();
      const key = `start-${executionId}`;
      const original = ctxUpdated(executionId, 1, { idempotencyKey: key });
      const retry = ctxUpdated(executionId, 2, { idempotencyKey: key });
      const otherTenant = event(
        { type: EventType.CtxUpdated, executionId, idempotencyKey: key, payload: { set: { n: 3 } } },
        {
          tenantId: 'tenant-b',
          organizationId: 'org-a',
        },
      );

      const [first] = await store.append([original]);
      const [second] = await store.append([retry]);
      const [third] = await store.append([otherTenant]);

      expect(second).toEqual({ event: first!.event, duplicate: true });
      expect(third!.duplicate).toBe(false);
      expect(await eventsOf(executionId)).toBe(2);
    });

    it('refuses an idempotency key another organization of the tenant holds, without revealing its event', async () => {
      const executionId = ids.next();
      const key = `shared-${executionId}`;
      await store.append([ctxUpdated(executionId, 1, { idempotencyKey: key })]);
      const otherOrg = event(
        { type: EventType.CtxUpdated, executionId, idempotencyKey: key, payload: { set: { n: 2 } } },
        {
          tenantId: TENANT.tenantId,
          organizationId: 'org-b',
        },
      );

      await expect(store.append([ctxUpdated(executionId, 3), otherOrg])).rejects.toBeInstanceOf(EventKeyTakenError);
      expect(await eventsOf(executionId)).toBe(1);
    });

    it('rejects a batch with a stale expected version and leaves nothing behind', async () => {
      const executionId = ids.next();
      const streamId = `execution/${executionId}`;
      await store.append([ctxUpdated(executionId, 1)], { expectedVersion: { streamId, version: 0 } });
      const batch = [ctxUpdated(executionId, 2), commandIssued(executionId, ids.next())];

      const attempt = store.append(batch, { expectedVersion: { streamId, version: 0 } });

      await expect(attempt).rejects.toBeInstanceOf(StreamVersionConflict);
      await expect(attempt).rejects.toMatchObject({ streamId, expected: 0, actual: 1 });
      expect(await eventsOf(executionId)).toBe(1);
      expect(await count('noetl.event WHERE event_id = ANY($1::bigint[])', [batch.map((e) => e.event_id)])).toBe(0);
    });

    it('accepts a batch whose expected version is current', async () => {
      const executionId = ids.next();
      const streamId = `execution/${executionId}`;
      await store.append([ctxUpdated(executionId, 1)]);

      const results = await store.append([ctxUpdated(executionId, 2), ctxUpdated(executionId, 3)], {
        expectedVersion: { streamId, version: 1 },
      });

      expect(results.map((r) => r.event.stream_version)).toEqual([2, 3]);
    });

    it('puts each new event on the ledger tail once, in commit order, with the transaction that wrote it, and no duplicate', async () => {
      const executionId = ids.next();
      const a = ctxUpdated(executionId, 1);
      const b = commandIssued(executionId, ids.next());

      const first = await store.append([a, b]);
      await store.append([a]);
      await store.append([b, a]);
      const later = await store.append([ctxUpdated(executionId, 2)]);

      const tail = (await readTail(db, TAIL_START, 10_000, TENANT)).events.filter(({ event }) => event.execution_id === executionId);
      expect(tail.map(({ event }) => event)).toEqual([...first, ...later].map((r) => r.event));
      const [ofFirst, ofB, ofLater] = tail.map(({ position }) => BigInt(position.tx));
      expect(ofFirst).toBe(ofB);
      expect(ofLater! > ofFirst!).toBe(true);
    });

    it('inserts deferred events with the next append of their transaction, and before its commit when nothing follows', async () => {
      const executionId = ids.next();
      const seen = async (q: Queryable): Promise<number> =>
        Number((await q.query<{ n: string }>('SELECT count(*) AS n FROM noetl.event WHERE execution_id = $1', [executionId]))[0]!.n);

      const appended = await db.transaction(async (q) => {
        const [report] = await store.appendWithin(q, [ctxUpdated(executionId, 1)], { defer: true });
        // Sealed (its version is final) but not yet in the table, even as this transaction sees it.
        expect(await seen(q)).toBe(0);
        const [decision] = await store.appendWithin(q, [ctxUpdated(executionId, 2)]);
        expect(await seen(q)).toBe(2);
        return [report!, decision!];
      });
      expect(appended.map((result) => result.event.stream_version)).toEqual([1, 2]);
      expect(await eventsOf(executionId)).toBe(2);

      await db.transaction((q) => store.appendWithin(q, [ctxUpdated(executionId, 3)], { defer: true }));
      expect((await store.readStream(`execution/${executionId}`)).map((event) => event.stream_version)).toEqual([1, 2, 3]);

      await expect(
        db.transaction(async (q) => {
          await store.appendWithin(q, [ctxUpdated(executionId, 4)], { defer: true });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await eventsOf(executionId)).toBe(3);
    });

    it('defers what the caller vouches for (a command issue, an idempotency key) to the commit, never an end; a vouched key found taken fails the commit', async () => {
      const executionId = ids.next();
      const count = async (q: Queryable): Promise<number> =>
        Number((await q.query<{ n: string }>('SELECT count(*) AS n FROM noetl.event WHERE execution_id = $1', [executionId]))[0]!.n);
      const key = `plan-${executionId}`;

      await db.transaction(async (q) => {
        await store.appendWithin(q, [commandIssued(executionId, ids.next()), ctxUpdated(executionId, 1, { idempotencyKey: key })], {
          defer: true,
          minted: true,
        });
        expect(await count(q)).toBe(0);
        await store.appendWithin(q, [loopDone(executionId)], { defer: true, minted: true });
        // The loop's end went in at once, and the deferred events with it.
        expect(await count(q)).toBe(3);
      });
      expect(await eventsOf(executionId)).toBe(3);

      const vouched = db.transaction((q) =>
        store.appendWithin(q, [ctxUpdated(executionId, 2, { idempotencyKey: key })], { defer: true, minted: true }),
      );
      await expect(vouched).rejects.toMatchObject({ code: '23505' });
      expect(await eventsOf(executionId)).toBe(3);
    });

    it('inserts at once what carries a unique key, asked to defer or not', async () => {
      const executionId = ids.next();
      await db.transaction(async (q) => {
        await store.appendWithin(
          q,
          [commandIssued(executionId, ids.next()), ctxUpdated(executionId, 1, { idempotencyKey: `now-${executionId}` })],
          { defer: true },
        );
        expect(
          Number((await q.query<{ n: string }>('SELECT count(*) AS n FROM noetl.event WHERE execution_id = $1', [executionId]))[0]!.n),
        ).toBe(2);
      });
    });

    it('joins the caller transaction and rolls back with it', async () => {
      const executionId = ids.next();
      const rollback = new Error('caller changed its mind');

      await expect(
        db.transaction(async (q) => {
          await store.appendWithin(q, [ctxUpdated(executionId, 1)]);
          throw rollback;
        }),
      ).rejects.toBe(rollback);

      expect(await eventsOf(executionId)).toBe(0);
    });

    it('reads a few rows per appended event, however many events the ledger holds', async () => {
      // A ledger of 3,000 events, each kind of unique key among them, analysed as autovacuum would.
      for (let batch = 0; batch < 30; batch++) {
        const executionId = ids.next();
        await store.append([
          ...Array.from({ length: 97 }, (_, i) => ctxUpdated(executionId, i, { idempotencyKey: `bounded-${executionId}-${i}` })),
          commandIssued(executionId, ids.next()),
          loopDone(executionId),
          terminal(executionId, batch),
        ]);
      }
      await db.query('ANALYZE noetl.event');
      const executionId = ids.next();
      const batch = [
        ctxUpdated(executionId, 1, { idempotencyKey: `bounded-${executionId}` }),
        commandIssued(executionId, ids.next()),
        terminal(executionId, 0),
      ];

      // pg_stat_xact_*: what this connection read and has not yet reported (this transaction's reads among them):
      // rows of the table read by sequential scans, and entries of its indexes read by index scans.
      const eventRowsRead = async (q: Queryable): Promise<number> => {
        const [stats] = await q.query<{ rows: string }>(
          `SELECT (SELECT coalesce(seq_tup_read, 0) FROM pg_stat_xact_user_tables WHERE schemaname = 'noetl' AND relname = 'event')
                + (SELECT coalesce(sum(pg_stat_get_xact_tuples_returned(indexrelid)), 0) FROM pg_index WHERE indrelid = 'noetl.event'::regclass) AS rows`,
        );
        return Number(stats?.rows ?? 0);
      };
      const read = await db.transaction(async (q) => {
        const before = await eventRowsRead(q);
        await store.appendWithin(q, batch);
        return (await eventRowsRead(q)) - before;
      });

      expect(await eventsOf(executionId)).toBe(3);
      expect(read).toBeLessThanOrEqual(10 * batch.length);
    });

    it('refuses, rather than calls a duplicate, an event that lands on a stream position taken without the lock', async () => {
      const executionId = ids.next();
      await store.append([ctxUpdated(executionId, 1)]);
      const next = ctxUpdated(executionId, 2);

      // The first version read misses the stored event, as if another writer had slipped in without the lock.
      let versionReads = 0;
      const attempt = db.transaction((q) =>
        store.appendWithin(
          {
            query: (sql, params) =>
              sqlText(sql).includes('ORDER BY e.stream_version DESC LIMIT 1') && versionReads++ === 0
                ? Promise.resolve([])
                : q.query(sql, params),
          },
          [next],
        ),
      );

      await expect(attempt).rejects.toMatchObject({ code: 'stream_version_conflict', expected: 0, actual: 1 });
      expect(await eventsOf(executionId)).toBe(1);
    });

    it('rejects an event type outside the registry', async () => {
      const bogus = { ...ctxUpdated(ids.next(), 1), event_type: 'made.up' } as unknown as AnyNewEvent;
      await expect(store.append([bogus])).rejects.toBeInstanceOf(InvalidEventError);
    });
  });

  describe('reading', () => {
    it('reports version 0 and no events for an empty stream', async () => {
      expect(await store.streamVersion(`execution/${ids.next()}`)).toBe(0);
      expect(await store.readStream(`execution/${ids.next()}`)).toEqual([]);
    });

    it('reads a stream from a version on', async () => {
      const executionId = ids.next();
      await store.append([ctxUpdated(executionId, 1), ctxUpdated(executionId, 2), ctxUpdated(executionId, 3)]);

      expect((await store.readStream(`execution/${executionId}`, 2)).map((e) => e.stream_version)).toEqual([2, 3]);
    });
  });
});
