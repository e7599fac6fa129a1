import { randomBytes } from 'node:crypto';
import { loadConfig } from '@noetl/config';
import {
  buildEvent,
  EventType,
  foldEvents,
  SnowflakeIds,
  stateChecksum,
  type EventDraft,
  type EventTypeName,
  type LedgerEvent,
} from '@noetl/event-kernel';
import { Database, LeadershipRepository, LedgerCursorRepository, PgEventStore, tailBacklog, TAIL_START } from '@noetl/storage';
import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { Registry } from 'prom-client';
import { requireNats } from '../../../../test/support/services';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { waitFor } from '../../../../test/support/wait-for';
import { EVENTS_STREAM } from '../event-stream/event-stream';
import { shardOf } from '../event-stream/event-subjects';
import { executionStream } from '../ledger';
import { EventRelay, relayName } from '../relay/event-relay';
import { RelayMetrics } from '../relay/relay-metrics';
import { ProjectorMetrics } from './projector-metrics';
import { standaloneProjector } from './rebuild';
import { StreamProjector } from './stream-projector';

jest.setTimeout(60_000);

const ids = new SnowflakeIds(14, () => Date.now());
const SHARDS = 2;

/**
 * Two projector shards over one JetStream stream fed by the relay (issue
 * 10): each folds only the executions its shard owns; a shard that goes
 * away before acking and comes back loses and duplicates nothing.
 */
describe('StreamProjector shards', () => {
  let testDb: TestDatabase;
  let db: Database;
  let relayNats: NatsConnection;
  let relay: EventRelay;
  let relayMetrics: RelayMetrics;
  const tenant = `t${randomBytes(4).toString('hex')}`;
  const config = loadConfig({ NOETL_TENANT_ID: tenant, NOETL_ORGANIZATION_ID: 'o', LOG_LEVEL: 'silent' });
  const shards: { feed: StreamProjector; nats: NatsConnection }[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await Database.connect(testDb.url, { poolSize: 8 });
    relayNats = await connect({ servers: await requireNats() });
    const cursors = new LedgerCursorRepository();
    relayMetrics = new RelayMetrics(new Registry(), async () =>
      tailBacklog(db, (await cursors.get(db, relayName(config.tenancy))) ?? TAIL_START, config.tenancy),
    );
    relay = new EventRelay({
      db,
      cursors,
      leadership: new LeadershipRepository(),
      js: relayNats.jetstream(),
      jsm: await relayNats.jetstreamManager(),
      scope: config.tenancy,
      shardCount: SHARDS,
      batch: 100,
      pollMs: 500,
      limits: { maxAgeMs: 3_600_000, maxBytes: 1024 ** 3, duplicateWindowMs: 120_000 },
      logger: pino({ level: 'silent' }),
      metrics: relayMetrics,
    });
    relay.start();
  });

  afterAll(async () => {
    const jsm = await relayNats.jetstreamManager();
    for (const { feed, nats } of shards.splice(0)) {
      await feed.stop();
      await jsm.consumers.delete(EVENTS_STREAM, feed.durableOf(config.tenancy)).catch(() => undefined);
      await nats.close().catch(() => undefined);
    }
    await relay?.stop();
    await relayNats?.close();
    await db?.close();
    await testDb?.drop();
  });

  /** A shard on a NATS connection of its own; `folded` collects the executions it folded. */
  async function startShard(shardIndex: number, folded: Set<string>): Promise<{ feed: StreamProjector; nats: NatsConnection }> {
    const nats = await connect({ servers: await requireNats() });
    const projector = standaloneProjector(db, config, {
      observe: (event) => void folded.add(event.execution_id),
      shard: String(shardIndex),
    });
    const feed = new StreamProjector({
      nats,
      project: (events, elided) => projector.deliver(events, elided),
      flush: (options) => projector.flush(options),
      metrics: new ProjectorMetrics(new Registry()),
      logger: pino({ level: 'silent' }),
      scopes: async () => [config.tenancy],
      shardIndex,
      shardCount: SHARDS,
    });
    feed.start();
    const shard = { feed, nats };
    shards.push(shard);
    return shard;
  }

  const store = () => new PgEventStore(db);
  const context = { ids, now: () => new Date(), producer: 'stream-projector.int-spec', tenantId: tenant, organizationId: 'o' };
  const draft = <T extends EventTypeName>(d: EventDraft<T>) => buildEvent(d, context);

  async function startExecutions(n: number): Promise<string[]> {
    const started: string[] = [];
    for (let i = 0; i < n; i++) {
      const executionId = ids.next();
      await store().append([
        draft({ type: EventType.ExecutionStarted, executionId, payload: { path: 'p', version: 1, catalog_id: '1', workload: { i } } }),
      ]);
      started.push(executionId);
    }
    return started;
  }

  async function setCtx(executionIds: readonly string[], value: number): Promise<void> {
    for (const executionId of executionIds)
      await store().append([draft({ type: EventType.CtxUpdated, executionId, payload: { set: { value } } })]);
  }

  async function ledgerOf(executionId: string): Promise<LedgerEvent[]> {
    return store().readStream(executionStream(executionId));
  }

  async function projected(executionId: string): Promise<{ version: number; checksum: string } | undefined> {
    const [row] = await db.query<{ version: string; checksum: string }>(
      `SELECT version, checksum FROM noetl.projection WHERE projection_key = $1`,
      [executionId],
    );
    return row && { version: Number(row.version), checksum: row.checksum };
  }

  it('folds each execution in the shard that owns it; a shard that goes away unacked and comes back loses and duplicates nothing', async () => {
    const folded = [new Set<string>(), new Set<string>()];
    await startShard(0, folded[0]!);
    const one = await startShard(1, folded[1]!);
    const executions = await startExecutions(12);
    await setCtx(executions, 1);
    await waitFor(async () => (await Promise.all(executions.map(projected))).every((p) => p?.version === 2), {
      timeoutMs: 20_000,
      description: 'every execution projected',
    });
    for (const executionId of executions) {
      const owner = shardOf(executionId, SHARDS);
      expect({ executionId, folded: folded[owner]!.has(executionId), byOther: folded[1 - owner]!.has(executionId) }).toEqual({
        executionId,
        folded: true,
        byOther: false,
      });
    }

    // Shard 1 goes away without a goodbye while events for it flow, then comes back on the same durable consumer.
    await one.nats.close();
    await setCtx(executions, 2);
    await setCtx(executions, 3);
    const refolded = new Set<string>();
    await startShard(1, refolded);
    await waitFor(async () => (await Promise.all(executions.map(projected))).every((p) => p?.version === 4), {
      timeoutMs: 30_000,
      description: 'every execution projected after the restart',
    });
    for (const executionId of executions) {
      const state = foldEvents(await ledgerOf(executionId))!;
      expect(await projected(executionId)).toEqual({ version: 4, checksum: stateChecksum(state) });
    }
  });

  it('projects an event too large for a NATS message from the ledger, and the events behind it flow on', async () => {
    if (shards.length === 0) for (const shardIndex of [0, 1]) await startShard(shardIndex, new Set());
    const [executionId] = await startExecutions(1);
    const maxPayload = relayNats.info!.max_payload;
    // The execution's last event, so no later one would reveal a gap: only the elided message says to read the ledger.
    await store().append([
      draft({ type: EventType.CtxUpdated, executionId: executionId!, payload: { set: { big: 'x'.repeat(maxPayload) } } }),
    ]);
    const after = await startExecutions(3);
    const state = async (id: string) => ({
      version: (await ledgerOf(id)).length,
      checksum: stateChecksum(foldEvents(await ledgerOf(id))!),
    });
    await waitFor(async () => (await projected(executionId!))?.version === 2, {
      timeoutMs: 20_000,
      description: 'the oversized event projected',
    });
    expect(await projected(executionId!)).toEqual(await state(executionId!));
    expect((await relayMetrics.elided.get()).values[0]?.value).toBe(1);
    await waitFor(async () => (await Promise.all(after.map(projected))).every((p) => p?.version === 1), {
      timeoutMs: 20_000,
      description: 'the later executions projected',
    });
  });
});
