import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '@noetl/event-kernel';
import {
  Database,
  FsPayloadStore,
  getJson,
  PayloadCorruptError,
  PayloadNotFoundError,
  PgPayloadStore,
  putJson,
  type PayloadStore,
} from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const SCOPE = { tenantId: 'tenant-a', organizationId: 'org-a' };
const OTHER = { tenantId: 'tenant-b', organizationId: 'org-a' };

interface Harness {
  store: PayloadStore;
  /** How many copies of `sha` are stored for the scope. */
  copies(sha: string): Promise<number>;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name));
}

describe.each(['pg', 'fs'] as const)('%s payload store', (kind) => {
  let testDb: TestDatabase | undefined;
  let db: Database | undefined;
  let root: string;
  let harness: Harness;

  beforeAll(async () => {
    if (kind === 'pg') {
      testDb = await createTestDatabase();
      const database = await Database.connect(testDb.url, { poolSize: 4 });
      db = database;
      harness = {
        store: new PgPayloadStore(database),
        copies: async (sha) =>
          Number(
            (
              await database.query<{ n: string }>('SELECT count(*) AS n FROM noetl.payload WHERE sha256 = $1 AND tenant_id = $2', [
                sha,
                SCOPE.tenantId,
              ])
            )[0]!.n,
          ),
      };
    } else {
      root = await mkdtemp(join(tmpdir(), 'noetl-payloads-'));
      harness = {
        store: new FsPayloadStore(root),
        copies: async (sha) => (await listFiles(join(root, SCOPE.tenantId))).filter((f) => f.endsWith(sha)).length,
      };
    }
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('stores the same bytes once and returns the same ref', async () => {
    const bytes = new TextEncoder().encode(`hello ${kind} ${Date.now()}`);

    const first = await harness.store.put(bytes, 'text/plain', SCOPE);
    const second = await harness.store.put(Buffer.from(bytes), 'text/plain', SCOPE);

    expect(second).toEqual(first);
    expect(first).toEqual({ sha256: sha256Hex(bytes), media_type: 'text/plain', bytes: bytes.byteLength });
    expect(await harness.copies(first.sha256)).toBe(1);
    expect(await harness.store.get(first, SCOPE)).toEqual(Buffer.from(bytes));
    expect(await harness.store.get(first.sha256, SCOPE)).toEqual(Buffer.from(bytes));
    expect(await harness.store.exists(first.sha256, SCOPE)).toBe(true);
  });

  it('keeps one copy when 20 writers race to put the same bytes', async () => {
    const bytes = `race ${kind} ${Date.now()}`;

    const refs = await Promise.all(Array.from({ length: 20 }, () => harness.store.put(bytes, 'text/plain', SCOPE)));

    for (const ref of refs) expect(ref).toEqual(refs[0]);
    expect(await harness.copies(refs[0]!.sha256)).toBe(1);
    expect((await harness.store.get(refs[0]!, SCOPE)).toString('utf8')).toBe(bytes);
  });

  it('fails clearly for a payload it does not hold, including one held by another tenant', async () => {
    const ref = await harness.store.put('tenant-a only', 'text/plain', SCOPE);
    const missing = sha256Hex('never stored');

    await expect(harness.store.get(missing, SCOPE)).rejects.toThrow(PayloadNotFoundError);
    await expect(harness.store.get(missing, SCOPE)).rejects.toThrow(`payload ${missing} not found for tenant tenant-a, organization org-a`);
    await expect(harness.store.get(ref, OTHER)).rejects.toMatchObject({ code: 'payload_not_found', sha256: ref.sha256 });
    expect(await harness.store.exists(ref.sha256, OTHER)).toBe(false);
  });

  it('rejects an address that is not a sha256', async () => {
    await expect(harness.store.get('../../etc/passwd', SCOPE)).rejects.toMatchObject({ code: 'payload_ref_invalid' });
  });

  it('round-trips JSON as canonical JSON, so equal values share an address', async () => {
    const a = await putJson(harness.store, { b: [1, 2, { c: null }], a: 'x' }, SCOPE);
    const b = await putJson(harness.store, { a: 'x', b: [1, 2, { c: null }] }, SCOPE);

    expect(b).toEqual(a);
    expect(a.media_type).toBe('application/json');
    expect(await getJson(harness.store, a, SCOPE)).toEqual({ a: 'x', b: [1, 2, { c: null }] });
  });

  if (kind === 'fs') {
    it('refuses bytes that no longer match their address', async () => {
      const ref = await harness.store.put('pristine', 'text/plain', SCOPE);
      const [file] = (await listFiles(root)).filter((f) => f.endsWith(ref.sha256));
      await writeFile(file!, 'tampered');

      await expect(harness.store.get(ref, SCOPE)).rejects.toBeInstanceOf(PayloadCorruptError);
    });
  }
});
