import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@noetl/config';
import { Database, startEmbeddedPostgres } from '@noetl/storage';
import { baseDatabaseUrl } from '../../../../test/support/postgres';
import { pythonLedgerRefusal } from './python-ledger-refusal';

const EMBEDDED_BOOT_MS = 120_000;

describe('pythonLedgerRefusal', () => {
  describe("on this machine's PostgreSQL, which trusts loopback and its socket", () => {
    let database: Database;
    const url = baseDatabaseUrl();
    beforeAll(async () => {
      database = await Database.connect(url);
    });
    afterAll(() => database.close());

    it('refuses python steps: a step could log in as postgres with no password, over TCP and the socket', async () => {
      const reason = await pythonLedgerRefusal(loadConfig({ DATABASE_URL: url }), ['api', 'scheduler', 'worker'], database);
      expect(reason).toContain("the ledger's PostgreSQL cluster accepts a login without a password from this worker's host");
      expect(reason).toContain('postgres@127.0.0.1:5432');
      expect(reason).toContain('postgres@/var/run/postgresql:5432');
    });

    it('probes nothing with NOETL_PYTHON_LEDGER_ACCESS=allow, with python off, for a worker of other tools, or in a process without the worker role', async () => {
      expect(
        await pythonLedgerRefusal(loadConfig({ DATABASE_URL: url, NOETL_WORKER_TOOLS: 'http,postgres' }), ['worker'], database),
      ).toBeUndefined();
      expect(
        await pythonLedgerRefusal(loadConfig({ DATABASE_URL: url, NOETL_WORKER_TOOLS: 'http,python' }), ['worker'], database),
      ).toContain('postgres@127.0.0.1:5432');
      expect(
        await pythonLedgerRefusal(loadConfig({ DATABASE_URL: url, NOETL_PYTHON_LEDGER_ACCESS: 'allow' }), ['worker'], database),
      ).toBeUndefined();
      expect(await pythonLedgerRefusal(loadConfig({ DATABASE_URL: url, NOETL_PYTHON: 'off' }), ['worker'], database)).toBeUndefined();
      expect(await pythonLedgerRefusal(loadConfig({ DATABASE_URL: url }), ['api', 'scheduler', 'projector'], database)).toBeUndefined();
    });
  });

  it(
    'keeps python on the embedded PostgreSQL, which demands a password over TCP and has no socket',
    async () => {
      const home = await mkdtemp(join(tmpdir(), 'noetl-pyguard-'));
      // Run as root, the server runs as OS user postgres, which must reach the data dir.
      await chmod(home, 0o755);
      const embedded = await startEmbeddedPostgres(home);
      const database = await Database.connect(embedded.url);
      try {
        expect(await pythonLedgerRefusal(loadConfig({ NOETL_HOME: home }), ['api', 'scheduler', 'worker'], database)).toBeUndefined();
      } finally {
        await database.close();
        await embedded.stop();
        await rm(home, { recursive: true, force: true });
      }
    },
    EMBEDDED_BOOT_MS,
  );
});
