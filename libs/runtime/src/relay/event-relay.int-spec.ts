import { randomBytes } from 'node:crypto';
import { buildEvent, EventType, SnowflakeIds, type LedgerEvent } from '@noetl/event-kernel';
import {
  Database,
  LeadershipRepository,
  LedgerCursorRepository,
  PgEventStore,
  tailBacklog,
  TAIL_START,
  type Queryable,
  type TenantScope,
} from '@noetl/storage';
import { AckPolicy, connect, DeliverPolicy, JSONCodec, type NatsConnection } from 'nats';
import pino from 'pino';
import { Registry } from 'prom-client';
import { requireNats } from '../../../../test/support/services';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { waitFor } from '../../../../test/support/wait-for';
import { EVENTS_STREAM } from '../event-stream/event-stream';
import { eventSubject, shardOf, shardSubject } from '../event-stream/event-subjects';
import { EventRelay, relayName } from './event-relay';
import { RelayMetrics } from './relay-metrics';

jest.setTimeout(60_000);

const ids = new SnowflakeIds(13, () => Date.now());
const SHARDS = 4;
const LIMITS = { maxAgeMs: 3_600_000, maxBytes: 1024 ** 3, duplicateWindowMs: 120_000 };
const codec = JSONCodec<LedgerEvent>();

/**
 * The event relay against real PostgreSQL and NATS JetStream (issue 10
 * item 1, issue 23 item 1): it follows the ledger's tail in commit order.
 * The stream is the one every relay shares; each test writes under a tenant
 * of its own and reads back only that tenant's subjects.
 */
describe('EventRelay', () => {
  let testDb: TestDatabase;
  let db: Database;
  let nats: NatsConnection;
  let store: PgEventStore;
  const relays: EventRelay[] = [];
  const cursors = new LedgerCursorRepository();

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await Database.connect(testDb.url, { poolSize: 8 });
    nats = await connect({ servers: await requireNats() });
    store = new PgEventStore(db);
  });

  afterEach(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.stop()));
  });

  afterAll(async () => {
    await nats?.close();
    await db?.close();
    await testDb?.drop();
  });

  /** Events of the tenant committed that its relay has not published. */
  const backlogOf = async (scope: TenantScope) => tailBacklog(db, (await cursors.get(db, relayName(scope))) ?? TAIL_START, scope);

  async function relayFor(
    tenantId: string,
    options: { batch?: number } = {},
  ): Promise<{ relay: EventRelay; metrics: RelayMetrics; unpublished: () => Promise<number> }> {
    const scope = { tenantId, organizationId: 'o' };
    const metrics = new RelayMetrics(new Registry(), () => backlogOf(scope));
    const relay = new EventRelay({
      db,
      cursors,
      leadership: new LeadershipRepository(),
      js: nats.jetstream(),
      jsm: await nats.jetstreamManager(),
      scope,
      shardCount: SHARDS,
      batch: options.batch ?? 500,
      pollMs: 60_000,
      limits: LIMITS,
      logger: pino({ level: 'silent' }),
      metrics,
    });
    relays.push(relay);
    return { relay, metrics, unpublished: async () => (await backlogOf(scope)).events };
  }

  const ctxEvent = (tenantId: string) =>
    buildEvent(
      { type: EventType.CtxUpdated, executionId: ids.next(), payload: { set: { held: true } } },
      { ids, now: () => new Date(), producer: 'relay.int-spec', tenantId, organizationId: 'o' },
    );

  /** A transaction on `on` that does `write` and stays open until `commit()` (which resolves with what `write` gave once it committed). */
  function openTransaction<T>(write: (q: Queryable) => Promise<T>, on: Database = db): { written: Promise<void>; commit(): Promise<T> } {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const done = on.transaction(async (q) => {
      const value = await write(q);
      wrote();
      await released;
      return value;
    });
    return {
      written,
      commit: () => {
        release();
        return done;
      },
    };
  }

  /** Appends `perExecution` ctx.updated events to each of `executions` new executions of `tenantId`. */
  async function append(tenantId: string, executions: number, perExecution: number): Promise<LedgerEvent[]> {
    const context = { ids, now: () => new Date(), producer: 'relay.int-spec', tenantId, organizationId: 'o' };
    const appended: LedgerEvent[] = [];
    for (let e = 0; e < executions; e++) {
      const executionId = ids.next();
      const drafts = Array.from({ length: perExecution }, (_, i) =>
        buildEvent({ type: EventType.CtxUpdated, executionId, payload: { set: { i } } }, context),
      );
      for (const result of await store.append(drafts)) appended.push(result.event as LedgerEvent);
    }
    return appended;
  }

  /** Every message of `tenantId` in the stream, in stream order, with its subject and message id. */
  async function streamed(tenantId: string): Promise<{ subject: string; msgId: string; event: LedgerEvent }[]> {
    const jsm = await nats.jetstreamManager();
    const name = `check_${randomBytes(4).toString('hex')}`;
    await jsm.consumers.add(EVENTS_STREAM, {
      name,
      filter_subject: `noetl.events.${tenantId}.>`,
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
      inactive_threshold: 30_000_000_000,
    });
    const consumer = await nats.jetstream().consumers.get(EVENTS_STREAM, name);
    const out: { subject: string; msgId: string; event: LedgerEvent }[] = [];
    for (;;) {
      const batch = await consumer.fetch({ max_messages: 5000, expires: 1000 });
      let got = 0;
      for await (const message of batch) {
        got += 1;
        out.push({ subject: message.subject, msgId: message.headers?.get('Nats-Msg-Id') ?? '', event: codec.decode(message.data) });
      }
      if (got === 0) break;
    }
    await jsm.consumers.delete(EVENTS_STREAM, name);
    return out;
  }

  it('publishes each committed event once, on its shard subject, in stream order, and moves its cursor past it', async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const { relay, metrics, unpublished } = await relayFor(tenant);
    relay.start();
    const events = await append(tenant, 3, 5);
    const got = await waitFor(async () => {
      const messages = await streamed(tenant);
      return messages.length >= events.length ? messages : undefined;
    });
    expect(got.map((m) => m.msgId).sort()).toEqual(events.map((e) => e.event_id).sort());
    for (const message of got) {
      expect(message.subject).toBe(
        shardSubject(eventSubject(tenant, 'o', message.event.execution_id), shardOf(message.event.execution_id, SHARDS)),
      );
      expect(message.event.event_id).toBe(message.msgId);
    }
    for (const executionId of new Set(events.map((e) => e.execution_id))) {
      const versions = got.filter((m) => m.event.execution_id === executionId).map((m) => m.event.stream_version);
      expect(versions).toEqual([1, 2, 3, 4, 5]);
    }
    await waitFor(async () => (await unpublished()) === 0);
    expect((await metrics.published.get()).values[0]?.value).toBe(events.length);
  });

  it('publishes no event changed behind the runtime before it was relayed, counts it and relays on past it', async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const events = await append(tenant, 1, 3);
    const changed = events[1]!;
    // What a superuser can do with the append-only triggers switched off.
    await db.transaction(async (q) => {
      await q.query('SET LOCAL session_replication_role = replica');
      await q.query(`UPDATE noetl.event SET payload = '{"set": {"i": "forged"}}' WHERE event_id = $1`, [changed.event_id]);
    });
    const { relay, metrics, unpublished } = await relayFor(tenant);
    relay.start();
    await waitFor(async () => (await unpublished()) === 0);
    expect((await streamed(tenant)).map((m) => m.msgId)).toEqual([events[0]!.event_id, events[2]!.event_id]);
    expect((await metrics.corrupt.get()).values[0]?.value).toBe(1);
    expect((await metrics.published.get()).values[0]?.value).toBe(2);
  });

  it('republishes what a relay that died between publish and moving its cursor left, and the stream still holds each event once', async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const events = await append(tenant, 2, 10);
    // What the dead relay did: published the first 15 events, then died before its cursor moved.
    const js = nats.jetstream();
    for (const event of events.slice(0, 15)) {
      const subject = shardSubject(eventSubject(tenant, 'o', event.execution_id), shardOf(event.execution_id, SHARDS));
      await js.publish(subject, codec.encode(event), { msgID: event.event_id });
    }
    const { relay, unpublished } = await relayFor(tenant);
    relay.start();
    await waitFor(async () => (await unpublished()) === 0);
    const got = await streamed(tenant);
    expect(got.map((m) => m.msgId).sort()).toEqual(events.map((e) => e.event_id).sort());
  });

  it('publishes again an event JetStream acks as a duplicate of a message it does not hold (its proposal lost in a leader change)', async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const events = await append(tenant, 1, 4);
    // Published before, then gone from the stream while JetStream remembers their ids: what nats-server 2.9 leaves when a
    // leader change loses the proposal of a message it acked or answered with an error (chaos nats-node-loss).
    const js = nats.jetstream();
    const jsm = await nats.jetstreamManager();
    const lost = new Map<string, number>();
    for (const event of events.slice(0, 2)) {
      const subject = shardSubject(eventSubject(tenant, 'o', event.execution_id), shardOf(event.execution_id, SHARDS));
      const { seq } = await js.publish(subject, codec.encode(event), { msgID: event.event_id });
      lost.set(event.event_id, seq);
    }
    // A message after them, so their sequences lie inside the stream and not past its end (which would be a proposal under way).
    await js.publish(`noetl.events.${tenant}-later.o.1.0`, codec.encode(events[0]!));
    for (const seq of lost.values()) await jsm.streams.deleteMessage(EVENTS_STREAM, seq);

    const { relay, metrics, unpublished } = await relayFor(tenant);
    relay.start();
    await waitFor(async () => (await unpublished()) === 0);
    const got = await streamed(tenant);
    expect(got.map((m) => m.event.event_id).sort()).toEqual(events.map((e) => e.event_id).sort());
    expect(got.map((m) => m.msgId).sort()).toEqual(
      events.map((e) => (lost.has(e.event_id) ? `${e.event_id}.r${lost.get(e.event_id)}` : e.event_id)).sort(),
    );
    expect((await metrics.falseDuplicates.get()).values[0]?.value).toBe(2);
  });

  it('lets one relay of a tenant lead; when it stops, another takes over and nothing is lost', async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const first = await relayFor(tenant);
    const second = await relayFor(tenant);
    first.relay.start();
    await waitFor(async () => (await first.metrics.leader.get()).values[0]?.value === 1);
    second.relay.start();
    const before = await append(tenant, 1, 5);
    await waitFor(async () => (await first.unpublished()) === 0);
    expect((await second.metrics.leader.get()).values[0]?.value ?? 0).toBe(0);

    await first.relay.stop();
    await waitFor(async () => (await second.metrics.leader.get()).values[0]?.value === 1, {
      timeoutMs: 10_000,
      description: 'the second relay to take over',
    });
    const after = await append(tenant, 1, 5);
    await waitFor(async () => (await second.unpublished()) === 0);
    const got = await streamed(tenant);
    expect(got.map((m) => m.msgId).sort()).toEqual([...before, ...after].map((e) => e.event_id).sort());
  });

  it("relays on when the leader's listening connection dies, and loses and duplicates nothing", async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const relaysOfTenant = [await relayFor(tenant), await relayFor(tenant)];
    for (const { relay } of relaysOfTenant) relay.start();
    const leaders = async () =>
      (await Promise.all(relaysOfTenant.map(async ({ metrics }) => (await metrics.leader.get()).values[0]?.value ?? 0))).reduce(
        (a, b) => a + b,
        0,
      );
    await waitFor(async () => (await leaders()) === 1);
    const before = await append(tenant, 1, 5);
    await waitFor(async () => (await relaysOfTenant[0]!.unpublished()) === 0);
    // The leader's session dies (a network cut, a restarted pgbouncer): only the leader holds one, named for its role.
    const killed = await db.query<{ killed: boolean }>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
      [`noetl ${relayName({ tenantId: tenant, organizationId: 'o' })}`],
    );
    expect(killed).toEqual([{ killed: true }]);
    const after = await append(tenant, 1, 5);
    await waitFor(async () => (await relaysOfTenant[0]!.unpublished()) === 0, {
      timeoutMs: 15_000,
      description: 'a relay to publish again',
    });
    await waitFor(async () => (await leaders()) === 1);
    const got = await streamed(tenant);
    expect(got.map((m) => m.msgId).sort()).toEqual([...before, ...after].map((e) => e.event_id).sort());
  });

  it('replaces a leader that stopped answering once its lease runs out (a SIGSTOPped relay holds nothing)', async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    // What a stopped relay leaves: a lease it no longer renews.
    await db.query(`INSERT INTO noetl.leadership (role, holder, lease_until) VALUES ($1, 'stopped-relay', now() + interval '3 seconds')`, [
      `relay:${tenant}:o`,
    ]);
    const { relay, metrics, unpublished } = await relayFor(tenant);
    relay.start();
    const events = await append(tenant, 1, 5);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await metrics.leader.get()).values[0]?.value ?? 0).toBe(0);
    expect(await unpublished()).toBe(events.length);

    await waitFor(async () => (await unpublished()) === 0, {
      timeoutMs: 15_000,
      description: 'the relay to take over once the lease ran out',
    });
    const got = await streamed(tenant);
    expect(got.map((m) => m.msgId).sort()).toEqual(events.map((e) => e.event_id).sort());
    const [lease] = await db.query<{ holder: string }>('SELECT holder FROM noetl.leadership WHERE role = $1', [`relay:${tenant}:o`]);
    expect(lease?.holder).toBe(relay.holder);
  });

  it('catches up a backlog of 10,000 events', async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const events = await append(tenant, 100, 100);
    const { relay, unpublished } = await relayFor(tenant);
    const began = Date.now();
    relay.start();
    await waitFor(async () => (await unpublished()) === 0, { timeoutMs: 50_000, description: 'the backlog to drain' });
    console.info(`relay: 10,000 backlogged events published in ${Date.now() - began} ms`);
    const got = await streamed(tenant);
    expect(got).toHaveLength(events.length);
    expect(new Set(got.map((m) => m.msgId)).size).toBe(events.length);
  });

  it('holds back events committed behind a transaction that began first and is still running, and publishes both once it commits', async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const { relay, unpublished } = await relayFor(tenant);
    relay.start();
    // The earlier transaction writes its event first (its id is the older), then waits before it commits.
    const earlier = openTransaction(async (q) => (await store.appendWithin(q, [ctxEvent(tenant)]))[0]!.event);
    await earlier.written;
    const later = await append(tenant, 1, 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await streamed(tenant)).toEqual([]);
    expect(await unpublished()).toBe(1);

    const first = await earlier.commit();
    await waitFor(async () => (await unpublished()) === 0, { timeoutMs: 10_000, description: 'both events published' });
    const got = await streamed(tenant);
    expect(got.map((m) => m.msgId)).toEqual([first.event_id, later[0]!.event_id]);
  });

  it('publishes a held-back event when the transaction holding it back ends without writing an event (no notification wakes the relay)', async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const { relay, unpublished } = await relayFor(tenant);
    relay.start();
    // A transaction with an id of its own (it wrote a row) that writes no event.
    const holding = openTransaction((q) =>
      q.query(`INSERT INTO noetl.leadership (role, holder, lease_until) VALUES ($1, 'holding', now())`, [`held:${tenant}`]),
    );
    await holding.written;
    const events = await append(tenant, 1, 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await unpublished()).toBe(2);
    await holding.commit();
    // The relay's safety-net poll is a minute here: only its short re-read of a held-back tail publishes them this soon.
    await waitFor(async () => (await unpublished()) === 0, { timeoutMs: 5_000, description: 'the held-back events published' });
    expect((await streamed(tenant)).map((m) => m.msgId)).toEqual(events.map((e) => e.event_id));
  });

  it("publishes past a writing transaction of another database on the same server: only this database's transactions hold the tail back", async () => {
    const tenant = `t${randomBytes(4).toString('hex')}`;
    const { relay, unpublished } = await relayFor(tenant);
    relay.start();
    const otherDatabase = await createTestDatabase();
    const other = await Database.connect(otherDatabase.url, { poolSize: 1 });
    try {
      await other.query('CREATE TABLE elsewhere (x int)');
      // Its transaction id is older than the events', and it stays open until they are published.
      const elsewhere = openTransaction((q) => q.query('INSERT INTO elsewhere VALUES (1)'), other);
      await elsewhere.written;
      const events = await append(tenant, 1, 2);
      await waitFor(async () => (await unpublished()) === 0, {
        timeoutMs: 5_000,
        description: "the events published while the other database's transaction runs",
      });
      expect((await streamed(tenant)).map((m) => m.msgId)).toEqual(events.map((e) => e.event_id));
      await elsewhere.commit();
    } finally {
      await other.close();
      await otherDatabase.drop();
    }
  });
});
