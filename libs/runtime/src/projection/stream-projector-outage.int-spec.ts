import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '@noetl/config';
import { buildEvent, EventType, SnowflakeIds } from '@noetl/event-kernel';
import { Database, PgEventStore } from '@noetl/storage';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import pino from 'pino';
import { Registry } from 'prom-client';
import { startNatsServer, type RestartableService } from '../../../../test/chaos/services';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { waitFor } from '../../../../test/support/wait-for';
import { NATS_RECONNECT_FOREVER } from '../bus/nats-reconnect';
import { ensureEventStream } from '../event-stream/event-stream';
import { eventSubject, shardOf, shardSubject } from '../event-stream/event-subjects';
import { ProjectorMetrics } from './projector-metrics';
import { standaloneProjector } from './rebuild';
import { StreamProjector } from './stream-projector';

jest.setTimeout(60_000);

/** Longer than a JetStream API request's 5 s timeout: the shard's first requests fail, not just wait. */
const OUTAGE_MS = 7_000;
const ids = new SnowflakeIds(15, () => Date.now());

/**
 * Found by the chaos harness (issue 14, nats-down): a projector shard that
 * starts a tenant's consumer while NATS is away (a new tenant, a restarted
 * projector) asked for the JetStream manager outside its retry; the failure
 * rejected the consumer's loop for good (and was unhandled). It now waits
 * for NATS like it waits for the stream, and folds once NATS is back.
 */
describe('a projector shard started while NATS is away', () => {
  const dir = mkdtempSync(join(tmpdir(), 'noetl-nats-'));
  const tenant = `t${randomBytes(4).toString('hex')}`;
  const config = loadConfig({ NOETL_TENANT_ID: tenant, NOETL_ORGANIZATION_ID: 'o', LOG_LEVEL: 'silent' });
  let nats: RestartableService;
  let nc: NatsConnection;
  let testDb: TestDatabase;
  let db: Database;
  let feed: StreamProjector | undefined;

  beforeAll(async () => {
    [nats, testDb] = await Promise.all([startNatsServer(dir), createTestDatabase()]);
    db = await Database.connect(testDb.url, { poolSize: 4 });
    nc = await connect({ servers: nats.url.replace('nats://', ''), reconnectTimeWait: 100, ...NATS_RECONNECT_FOREVER });
    await ensureEventStream(await nc.jetstreamManager(), { maxAgeMs: 3_600_000, maxBytes: 64 * 1024 ** 2, duplicateWindowMs: 120_000 });
  });

  afterAll(async () => {
    await feed?.stop();
    await nc?.close();
    await nats?.stop();
    await db?.close();
    await testDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('consumes and folds once NATS is back', async () => {
    await nats.stop();
    const projector = standaloneProjector(db, config, { shard: '0' });
    feed = new StreamProjector({
      nats: nc,
      project: (events, elided) => projector.deliver(events, elided),
      flush: (options) => projector.flush(options),
      metrics: new ProjectorMetrics(new Registry()),
      logger: pino({ level: 'silent' }),
      scopes: async () => [config.tenancy],
      shardIndex: 0,
      shardCount: 1,
    });
    feed.start();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    await nats.start();

    const executionId = ids.next();
    const context = { ids, now: () => new Date(), producer: 'stream-projector-outage.int-spec', tenantId: tenant, organizationId: 'o' };
    const started = buildEvent(
      { type: EventType.ExecutionStarted, executionId, payload: { path: 'p', version: 1, catalog_id: '1', workload: {} } },
      context,
    );
    const [appended] = await new PgEventStore(db).append([started]);
    await waitFor(
      () =>
        nc.flush().then(
          () => true,
          () => false,
        ),
      { timeoutMs: 10_000, description: 'the connection back' },
    );
    await nc
      .jetstream()
      .publish(shardSubject(eventSubject(tenant, 'o', executionId), shardOf(executionId, 1)), JSONCodec().encode(appended!.event), {
        msgID: started.event_id,
      });
    await waitFor(
      async () => {
        const [row] = await db.query<{ version: string }>('SELECT version FROM noetl.projection WHERE projection_key = $1', [executionId]);
        return Number(row?.version) === 1;
      },
      { timeoutMs: 20_000, description: 'the shard to fold the event published after the outage' },
    );
  });
});
