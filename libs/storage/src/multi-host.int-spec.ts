import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDatabaseUrl } from '@noetl/config';
import { buildEvent, EventType, SnowflakeIds } from '@noetl/event-kernel';
import { connectClient, Database, migrate, PgEventStore, sqlStateOf } from '@noetl/storage';
import { startPostgresPair, type PostgresPair } from '../../../test/support/postgres-pair';
import { waitFor } from '../../../test/support/wait-for';

jest.setTimeout(180_000);

const ids = new SnowflakeIds(13, () => Date.now());
const started = (executionId: string) =>
  buildEvent(
    { type: EventType.ExecutionStarted, executionId, payload: { path: 'failover', version: 1, catalog_id: '1', workload: {} } },
    { ids, now: () => new Date(), producer: 'multi-host.int-spec', tenantId: 't', organizationId: 'o' },
  );

/** The same URL with its hosts in another order (the standby first), and another target_session_attrs. */
function reordered(url: string, order: number[], attrs: string): string {
  const parsed = parseDatabaseUrl(url);
  const first = new URL(parsed.forHost(parsed.hosts[0]!));
  const hosts = order.map((i) => `${parsed.hosts[i]!.host}:${parsed.hosts[i]!.port}`).join(',');
  return `postgres://${first.username}:${first.password}@${hosts}${first.pathname}?target_session_attrs=${attrs}`;
}

interface RawPool {
  totalCount: number;
}

/**
 * Issue 29 on a real primary and streaming standby (Debian's PostgreSQL, `pg_basebackup -R`):
 * the runtime's pool on a two-host DATABASE_URL with target_session_attrs=read-write.
 */
describe('a multi-host DATABASE_URL on a primary and its standby', () => {
  let home: string;
  let pair: PostgresPair;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'noetl-pair-'));
    chmodSync(home, 0o755);
    pair = await startPostgresPair(home, 'noetl');
    await migrate(pair.url, 'up');
  });
  afterAll(async () => {
    await pair?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  const serverOf = async (db: Database) =>
    (await db.query<{ recovery: boolean; port: number }>('SELECT pg_is_in_recovery() AS recovery, inet_server_port() AS port'))[0]!;
  const portOf = (url: string) => Number(new URL(url).port);

  it('connects to the writable host with read-write even when the standby is listed first; with any, to the first', async () => {
    const standbyFirst = (attrs: string) => reordered(pair.url, [1, 0], attrs);
    expect(portOf(pair.standbyUrl())).toBe(parseDatabaseUrl(pair.url).hosts[1]!.port);

    const writable = await Database.connect(standbyFirst('read-write'), { poolSize: 2 });
    const any = await Database.connect(standbyFirst('any'), { poolSize: 1 });
    try {
      expect(await serverOf(writable)).toEqual({ recovery: false, port: portOf(pair.primaryUrl()) });
      expect(await serverOf(any)).toEqual({ recovery: true, port: portOf(pair.standbyUrl()) });
      const outcome = await any.query(`CREATE TABLE never (id int)`).catch((error: unknown) => sqlStateOf(error));
      expect(outcome).toBe('25006');
      const client = await connectClient(standbyFirst('read-write'));
      try {
        expect((await client.query('SELECT pg_is_in_recovery() AS recovery')).rows).toEqual([{ recovery: false }]);
      } finally {
        await client.end();
      }
    } finally {
      await writable.close();
      await any.close();
    }
  });

  it('destroys a pooled connection whose server turned read-only (25006), and takes a fresh one once it is writable again', async () => {
    const db = await Database.connect(pair.url, { poolSize: 1 });
    const admin = await connectClient(pair.primaryUrl());
    try {
      const before = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
      await admin.query('ALTER SYSTEM SET default_transaction_read_only = on');
      await admin.query('SELECT pg_reload_conf()');
      // The reload reaches the pooled session asynchronously (its backend takes the SIGHUP between commands).
      await waitFor(
        async () => (await db.query<{ ro: string }>("SELECT current_setting('default_transaction_read_only') AS ro"))[0]?.ro === 'on',
        { description: 'the pooled session read-only' },
      );
      const failed = await db.query('CREATE TABLE read_only_probe (id int)').catch((error: unknown) => sqlStateOf(error));
      expect(failed).toBe('25006');
      expect((db.dataSource.driver as unknown as { master: RawPool }).master.totalCount).toBe(0);

      await admin.query('ALTER SYSTEM RESET default_transaction_read_only');
      await admin.query('SELECT pg_reload_conf()');
      await db.query('CREATE TABLE read_only_probe (id int)');
      const after = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
      expect(after).not.toBe(before);
    } finally {
      await admin.query('ALTER SYSTEM RESET default_transaction_read_only').catch(() => undefined);
      await admin.query('SELECT pg_reload_conf()').catch(() => undefined);
      await admin.end();
      await db.close();
    }
  });

  it('follows a failover: the primary SIGKILLed, the standby promoted, appends go on with nothing lost', async () => {
    const db = await Database.connect(pair.url, { poolSize: 3 });
    const store = new PgEventStore(db);
    try {
      const before = started(ids.next());
      await store.append([before]);
      const oldPrimary = portOf(pair.primaryUrl());

      await pair.killPrimaryAndPromote();

      const after = started(ids.next());
      const [result] = await store.append([after]);
      expect(result).toMatchObject({ duplicate: false, event: { event_id: after.event_id } });
      expect((await serverOf(db)).port).not.toBe(oldPrimary);
      const rows = await db.query<{ id: string }>(
        'SELECT event_id::text AS id FROM noetl.event WHERE event_id = ANY($1::bigint[]) ORDER BY event_id',
        [[before.event_id, after.event_id]],
      );
      expect(rows.map((r) => r.id)).toEqual([before.event_id, after.event_id].sort());

      // A new standby in the lost node's place, and the pair fails over again, back to the first node.
      await pair.rebuildStandby();
      await pair.killPrimaryAndPromote();
      const again = started(ids.next());
      await store.append([again]);
      expect((await serverOf(db)).port).toBe(oldPrimary);
      await pair.rebuildStandby();
    } finally {
      await db.close();
    }
  });
});
