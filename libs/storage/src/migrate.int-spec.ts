import { Client } from 'pg';
import { createEmptyDatabase, type TestDatabase } from '../../../test/support/test-database';
import { buildEvent, EventType, SnowflakeIds } from '@noetl/event-kernel';
import { Database, LedgerCursorRepository, MIGRATIONS_TABLE, migrate, PgEventStore, readTail } from '@noetl/storage';
import { MIGRATIONS } from '../../../migrations';

const ALL_MIGRATIONS = MIGRATIONS.map((Migration) => new Migration().name);

const NAMED_INDEXES = [
  'idx_execution_running',
  'idx_execution_running_scope',
  'idx_execution_running_child',
  'idx_api_key_tenant',
  'idx_execution_parent_command',
  'idx_stage_open',
  'idx_worker_tenant_heartbeat',
  'idx_schedule_due',
  'idx_schedule_buffered',
  'uq_schedule_declared',
  'uidx_event_command_issued',
  'uidx_event_loop_done',
  'uidx_event_terminal',
  'uidx_event_idempotency_key',
  'uidx_event_stream_version',
  'idx_execution_tenant_status',
  'idx_execution_parent',
  'idx_command_unclaimed',
  'idx_command_lease',
  'idx_command_execution',
  'uidx_frame_stage_index',
  'frame_open_idx',
  'idx_timer_due',
  'idx_event_tail',
  'idx_credential_use_name',
];

const TABLES = [
  'api_key',
  'tenant',
  'worker',
  'schedule',
  'leadership',
  'event',
  'catalog',
  'execution',
  'command',
  'stage',
  'frame',
  'timer',
  'ledger_cursor',
  'payload',
  'projection',
  'projection_snapshot',
  'credential',
  'tenant_setting',
  'credential_use',
];

describe('migrate', () => {
  let db: TestDatabase;
  let client: Client;

  beforeAll(async () => {
    db = await createEmptyDatabase();
    client = new Client({ connectionString: db.url });
    await client.connect();
  });

  afterAll(async () => {
    await client.end();
    await db.drop();
  });

  const schemaExists = async (): Promise<boolean> =>
    (await client.query("SELECT 1 FROM pg_namespace WHERE nspname = 'noetl'")).rowCount === 1;
  const indexNames = async (): Promise<string[]> =>
    (await client.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = 'noetl'")).rows.map(
      (row) => row.indexname,
    );
  const tableNames = async (): Promise<string[]> =>
    (await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'noetl'")).rows.map(
      (row) => row.tablename,
    );

  it('creates schema noetl with every table and named index, then reverts it and applies it again', async () => {
    const applied = await migrate(db.url, 'up');
    expect(applied).toEqual(ALL_MIGRATIONS);
    expect(await schemaExists()).toBe(true);
    expect((await tableNames()).sort()).toEqual([...TABLES].sort());
    expect(await indexNames()).toEqual(expect.arrayContaining(NAMED_INDEXES));
    expect(await migrate(db.url, 'up')).toEqual([]);

    // `down` reverts the newest migration only: walk back one at a time.
    for (const name of [...ALL_MIGRATIONS].reverse()) expect(await migrate(db.url, 'down')).toEqual([name]);
    expect(await schemaExists()).toBe(false);
    expect(await indexNames()).toEqual([]);
    expect(await migrate(db.url, 'down')).toEqual([]);

    expect(await migrate(db.url, 'up')).toEqual(ALL_MIGRATIONS);
    expect(await schemaExists()).toBe(true);
    expect(await indexNames()).toEqual(expect.arrayContaining(NAMED_INDEXES));
    // Two pools per migrate() call, and some 45 calls: over 5 s on a loaded machine.
  }, 30_000);

  it('keeps its bookkeeping outside schema noetl', async () => {
    const { rows } = await client.query('SELECT name FROM public.' + MIGRATIONS_TABLE);
    expect(rows.map((row) => row.name)).toEqual(ALL_MIGRATIONS);
  });

  it('applies each migration once when two processes race to migrate', async () => {
    const fresh = await createEmptyDatabase();
    try {
      const results = await Promise.all([migrate(fresh.url, 'up'), migrate(fresh.url, 'up'), migrate(fresh.url, 'up')]);
      expect(results.flat()).toEqual(ALL_MIGRATIONS);
    } finally {
      await fresh.drop();
    }
  });

  it('declares the partial unique indexes that make dispatch idempotent', async () => {
    const { rows } = await client.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'noetl' AND indexname LIKE 'uidx_event_%'",
    );
    const byName = Object.fromEntries(rows.map((row) => [row.indexname, row.indexdef]));
    expect(byName.uidx_event_command_issued).toMatch(/UNIQUE .*\(execution_id, command_id\) WHERE \(event_type = 'command.issued'::text\)/);
    expect(byName.uidx_event_loop_done).toMatch(/UNIQUE .*\(execution_id, loop_id\) WHERE \(event_type = 'loop.done'::text\)/);
    expect(byName.uidx_event_terminal).toMatch(
      /UNIQUE .*\(execution_id\) WHERE .*execution.completed.*execution.failed.*execution.cancelled/,
    );
    expect(byName.uidx_event_idempotency_key).toMatch(/UNIQUE .*\(tenant_id, idempotency_key\) WHERE \(idempotency_key IS NOT NULL\)/);
    expect(byName.uidx_event_stream_version).toMatch(/UNIQUE .*\(stream_id, stream_version\)/);
  });

  it('upgrades a ledger whose outbox held unpublished events: the relay and the projector feed start at the oldest of them', async () => {
    const fresh = await createEmptyDatabase();
    const db = await Database.connect(fresh.url, { poolSize: 2 });
    try {
      await migrate(fresh.url, 'up');
      // Back to just before LedgerTail, the migration that dropped the outbox.
      const sinceLedgerTail = ALL_MIGRATIONS.slice(ALL_MIGRATIONS.indexOf('LedgerTail1796200000000'));
      for (const name of [...sinceLedgerTail].reverse()) expect(await migrate(fresh.url, 'down')).toEqual([name]);
      // A ledger as the outbox kept it: four events, the first two published.
      const ids = new SnowflakeIds(17, () => Date.now());
      const context = { ids, now: () => new Date(), producer: 'migrate.int-spec', tenantId: 't', organizationId: 'o' };
      const executionId = ids.next();
      const store = new PgEventStore(db);
      const before = await store.append(
        Array.from({ length: 4 }, (_, i) => buildEvent({ type: EventType.CtxUpdated, executionId, payload: { set: { i } } }, context)),
      );
      for (const [i, { event }] of before.entries()) {
        await db.query(
          `INSERT INTO noetl.outbox (event_id, tenant_id, organization_id, execution_id, subject, event_type, payload, published_at)
           VALUES ($1, 't', 'o', $2, 's', $3, '{}', ${i < 2 ? 'now()' : 'NULL'})`,
          [event.event_id, executionId, event.event_type],
        );
      }
      expect(await migrate(fresh.url, 'up')).toEqual(sinceLedgerTail);

      const [after] = await store.append([buildEvent({ type: EventType.CtxUpdated, executionId, payload: { set: { i: 4 } } }, context)]);
      const cursors = new LedgerCursorRepository();
      for (const reader of ['relay:*', 'projector:*']) {
        const cursor = await cursors.get(db, reader);
        const tail = await readTail(db, cursor!, 100);
        expect({ reader, events: tail.events.map(({ event }) => event.event_id) }).toEqual({
          reader,
          events: [before[2]!, before[3]!, after!].map((r) => r.event.event_id),
        });
      }
    } finally {
      await db.close();
      await fresh.drop();
    }
  });
});
