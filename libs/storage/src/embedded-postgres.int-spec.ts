import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { dataDirFor, migrate, startEmbeddedPostgres, type EmbeddedPostgres } from '@noetl/storage';
import { MIGRATIONS } from '../../../migrations';

const BOOT_TIMEOUT_MS = 120_000;

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

describe('startEmbeddedPostgres', () => {
  let home: string;
  const started: EmbeddedPostgres[] = [];

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'noetl-embedded-'));
    // Run as root, the server runs as OS user postgres, which must reach the data dir.
    await chmod(home, 0o755);
  });

  afterAll(async () => {
    for (const server of started.reverse()) await server.stop();
    await rm(home, { recursive: true, force: true });
  }, BOOT_TIMEOUT_MS);

  it(
    'boots in a fresh home, answers, runs migrations, stops, and restarts on the same data keeping it',
    async () => {
      const first = await startEmbeddedPostgres(home);
      started.push(first);
      expect(first.reused).toBe(false);
      expect(first.url).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/noetl$/);
      expect(await withClient(first.url, async (c) => (await c.query('SELECT 1 AS one')).rows)).toEqual([{ one: 1 }]);
      expect(await migrate(first.url, 'up')).toEqual(MIGRATIONS.map((Migration) => new Migration().name));
      await withClient(first.url, (c) => c.query("INSERT INTO noetl.catalog VALUES (1, 't', 'o', 'p', 1, 'yaml', '{}', 'sum')"));
      await first.stop();
      started.pop();
      await expect(readFile(join(first.dataDir, 'postmaster.pid'))).rejects.toMatchObject({ code: 'ENOENT' });

      const second = await startEmbeddedPostgres(home);
      started.push(second);
      expect(second.reused).toBe(false);
      expect(await migrate(second.url, 'up')).toEqual([]);
      expect(await withClient(second.url, async (c) => (await c.query('SELECT path FROM noetl.catalog')).rows)).toEqual([{ path: 'p' }]);
    },
    BOOT_TIMEOUT_MS,
  );

  it(
    'reuses a server already running on the data dir and leaves it running on stop',
    async () => {
      const owner = started[started.length - 1]!;

      const guest = await startEmbeddedPostgres(home);
      expect(guest).toMatchObject({ reused: true, port: owner.port, url: owner.url });
      await guest.stop();

      expect(await withClient(owner.url, async (c) => (await c.query('SELECT 1 AS one')).rows)).toEqual([{ one: 1 }]);
    },
    BOOT_TIMEOUT_MS,
  );

  it(
    'starts over a stale postmaster.pid left by a dead server',
    async () => {
      const owner = started.pop()!;
      await owner.stop();
      const stale = join(owner.dataDir, 'postmaster.pid');
      // A pid no process has (pid_max is far below this), and a port nobody listens on.
      await writeFile(stale, `999999999\n${owner.dataDir}\n1700000000\n1\n\n127.0.0.1\n`);

      const fresh = await startEmbeddedPostgres(home);
      started.push(fresh);

      expect(fresh.reused).toBe(false);
      expect(await withClient(fresh.url, async (c) => (await c.query('SELECT count(*)::int AS n FROM noetl.catalog')).rows)).toEqual([
        { n: 1 },
      ]);
    },
    BOOT_TIMEOUT_MS,
  );
});

describe('dataDirFor', () => {
  it('keeps the data under NOETL_HOME when the server user can reach it', () => {
    expect(dataDirFor('/tmp/some-home', undefined)).toBe('/tmp/some-home/pgdata');
    expect(dataDirFor('/tmp', { uid: 65534, gid: 65534 })).toBe('/tmp/pgdata');
  });

  it('moves the data of a home private to root to a persistent directory of that home', () => {
    const a = dataDirFor('/root/.noetl', { uid: 65534, gid: 65534 });
    expect(a).toMatch(/^\/var\/lib\/noetl\/pgdata-[0-9a-f]{12}$/);
    expect(dataDirFor('/root/.noetl', { uid: 65534, gid: 65534 })).toBe(a);
    expect(dataDirFor('/root/.other', { uid: 65534, gid: 65534 })).not.toBe(a);
  });
});
