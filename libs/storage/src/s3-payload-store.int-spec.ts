import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { loadConfig } from '@noetl/config';
import { sha256Hex } from '@noetl/event-kernel';
import {
  Database,
  getJson,
  PayloadCorruptError,
  PayloadNotFoundError,
  PgPayloadStore,
  putJson,
  S3PayloadStore,
  TieredPayloadStore,
} from '@noetl/storage';
import { startS3TestServer, type S3TestServer } from '../../../test/support/s3-test-server';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const SCOPE = { tenantId: 'tenant-a', organizationId: 'org-a' };
const OTHER_TENANT = { tenantId: 'tenant-b', organizationId: 'org-a' };
const OTHER_ORG = { tenantId: 'tenant-a', organizationId: 'org-b' };

function storeFor(server: S3TestServer, env: Record<string, string> = {}): Promise<S3PayloadStore> {
  const { s3 } = loadConfig({ ...server.env, NOETL_S3_PREFIX: 'spec', ...env }).payloads;
  return S3PayloadStore.connect(s3!);
}

const keyOf = (sha: string, scope = SCOPE): string => `spec/${scope.tenantId}/${scope.organizationId}/${sha}`;

describe('S3 payload store (against s3rver on loopback)', () => {
  let server: S3TestServer;
  let store: S3PayloadStore;

  beforeAll(async () => {
    server = await startS3TestServer();
    store = await storeFor(server);
  });
  afterAll(async () => {
    store?.close();
    await server?.close();
  });

  it('puts under <prefix>/<tenant>/<org>/<sha256>, reads the bytes back and answers exists', async () => {
    const bytes = Buffer.from(`hello s3 ${Date.now()}`);

    const ref = await store.put(bytes, 'text/plain', SCOPE);

    expect(ref).toEqual({ sha256: sha256Hex(bytes), media_type: 'text/plain', bytes: bytes.byteLength });
    expect(await server.keys()).toContain(keyOf(ref.sha256));
    expect(await store.get(ref, SCOPE)).toEqual(bytes);
    expect(await store.get(ref.sha256, SCOPE)).toEqual(bytes);
    expect(await store.exists(ref.sha256, SCOPE)).toBe(true);
    expect(await store.exists(sha256Hex('never stored'), SCOPE)).toBe(false);
    await expect(store.get(sha256Hex('never stored'), SCOPE)).rejects.toBeInstanceOf(PayloadNotFoundError);
  });

  it('uploads the same bytes once: a second put only asks HEAD', async () => {
    const value = { run: randomBytes(8).toString('hex'), rows: [1, 2, 3] };
    const first = await putJson(store, value, SCOPE);
    const file = await server.objectFile(keyOf(first.sha256));
    const writtenAt = (await stat(file)).mtimeMs;
    const before = server.requests().length;

    const second = await putJson(store, value, SCOPE);

    expect(second).toEqual(first);
    const key = `/${server.bucket}/${keyOf(first.sha256)}`;
    expect(server.requests().slice(before)).toEqual([`HEAD ${key}`]);
    expect((await stat(file)).mtimeMs).toBe(writtenAt);
    expect(await getJson(store, second, SCOPE)).toEqual(value);
  });

  it('writes an object again when a put finds it older than half the grace period, so retention spares it', async () => {
    const eager = await storeFor(server, { NOETL_S3_GC_GRACE_SECONDS: '0' });
    try {
      const ref = await eager.put(Buffer.from(`refresh ${Date.now()}`), 'text/plain', SCOPE);
      const before = server.requests().length;

      await eager.put(Buffer.from(await eager.get(ref, SCOPE)), 'text/plain', SCOPE);

      const key = `/${server.bucket}/${keyOf(ref.sha256)}`;
      const sent = server
        .requests()
        .slice(before)
        .filter((r) => !r.startsWith('GET '));
      expect(sent.map((r) => r.split('?')[0])).toEqual([`HEAD ${key}`, `PUT ${key}`]);
    } finally {
      eager.close();
    }
  });

  it('uploads a 6 MB body in parts and reads it back whole', async () => {
    const bytes = randomBytes(6 * 1024 * 1024);
    const before = server.requests().length;

    const ref = await store.put(bytes, 'application/octet-stream', SCOPE);

    const requests = server.requests().slice(before);
    expect(requests.filter((r) => r.startsWith('POST ') && r.includes('?uploads'))).toHaveLength(1);
    expect(requests.filter((r) => r.startsWith('PUT ') && r.includes('partNumber='))).toHaveLength(2);
    expect(requests.filter((r) => r.startsWith('POST ') && r.includes('uploadId='))).toHaveLength(1);
    expect((await store.get(ref, SCOPE)).equals(bytes)).toBe(true);
  });

  it('detects an object whose bytes were changed in the bucket (payload_corrupt)', async () => {
    const ref = await store.put(Buffer.from(`original ${Date.now()}`), 'text/plain', SCOPE);
    await server.corrupt(keyOf(ref.sha256), Buffer.from('tampered'));

    const read = store.get(ref, SCOPE);

    await expect(read).rejects.toBeInstanceOf(PayloadCorruptError);
    await expect(read).rejects.toMatchObject({ code: 'payload_corrupt' });
  });

  it('keeps tenants and organizations apart: the same bytes are a separate object per scope', async () => {
    const bytes = Buffer.from(`scoped ${Date.now()}`);
    const ref = await store.put(bytes, 'text/plain', SCOPE);

    for (const other of [OTHER_TENANT, OTHER_ORG]) {
      expect(await store.exists(ref.sha256, other)).toBe(false);
      await expect(store.get(ref, other)).rejects.toBeInstanceOf(PayloadNotFoundError);
    }
    await store.put(bytes, 'text/plain', OTHER_TENANT);
    expect(await server.keys()).toEqual(expect.arrayContaining([keyOf(ref.sha256), keyOf(ref.sha256, OTHER_TENANT)]));
    expect(await server.keys()).not.toContain(keyOf(ref.sha256, OTHER_ORG));
    await expect(store.put(bytes, 'text/plain', { tenantId: '../x', organizationId: 'org-a' })).rejects.toMatchObject({
      code: 'payload_ref_invalid',
    });
  });

  it('names the bucket when it does not exist', async () => {
    const astray = await storeFor(server, { NOETL_S3_BUCKET: 'no-such-bucket' });
    try {
      await expect(astray.put(Buffer.from('x'), 'text/plain', SCOPE)).rejects.toMatchObject({
        code: 'payload_store_unavailable',
        message: expect.stringMatching(/^put s3:\/\/no-such-bucket\/spec\/tenant-a\/org-a\/[0-9a-f]{64} failed: .*bucket does not exist/),
      });
    } finally {
      astray.close();
    }
  });

  it('retries through a server that is down for 3 s, then stores and reads', async () => {
    const bytes = randomBytes(64 * 1024);
    await server.stop();
    const restarted = new Promise<void>((resolve, reject) => setTimeout(() => server.start().then(resolve, reject), 3000));
    const startedAt = Date.now();

    const ref = await store.put(bytes, 'application/octet-stream', SCOPE);

    await restarted;
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(3000);
    expect((await store.get(ref, SCOPE)).equals(bytes)).toBe(true);
  }, 60_000);

  it('gives up with the error once its attempts are spent', async () => {
    const impatient = await storeFor(server, { NOETL_S3_MAX_ATTEMPTS: '2' });
    await server.stop();
    try {
      await expect(impatient.put(randomBytes(16), 'application/octet-stream', SCOPE)).rejects.toMatchObject({
        code: 'payload_store_unavailable',
        message: expect.stringMatching(/^head s3:\/\/noetl-test\/spec\/tenant-a\/org-a\/[0-9a-f]{64} failed: .*ECONNREFUSED/),
      });
    } finally {
      impatient.close();
      await server.start();
    }
  });
});

describe('tiered payload store (database below the threshold, bucket at or above it)', () => {
  const THRESHOLD = 4096;
  let server: S3TestServer;
  let objects: S3PayloadStore;
  let testDb: TestDatabase;
  let db: Database;
  let tiered: TieredPayloadStore;
  const rowCount = async (sha: string): Promise<number> =>
    Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM noetl.payload WHERE sha256 = $1', [sha]))[0]!.n);

  beforeAll(async () => {
    server = await startS3TestServer();
    objects = await storeFor(server);
    testDb = await createTestDatabase();
    db = await Database.connect(testDb.url, { poolSize: 2 });
    tiered = new TieredPayloadStore(new PgPayloadStore(db), objects, THRESHOLD);
  });
  afterAll(async () => {
    objects?.close();
    await db?.close();
    await testDb?.drop();
    await server?.close();
  });

  it('keeps a small payload in noetl.payload and a large one in the bucket only', async () => {
    const small = await tiered.put(randomBytes(THRESHOLD - 1), 'application/octet-stream', SCOPE);
    const large = await tiered.put(randomBytes(THRESHOLD), 'application/octet-stream', SCOPE);

    expect(await rowCount(small.sha256)).toBe(1);
    expect(await objects.exists(small.sha256, SCOPE)).toBe(false);
    expect(await rowCount(large.sha256)).toBe(0);
    expect(await server.keys()).toContain(keyOf(large.sha256));
    expect((await tiered.get(small, SCOPE)).byteLength).toBe(THRESHOLD - 1);
    expect((await tiered.get(large, SCOPE)).byteLength).toBe(THRESHOLD);
    expect(await tiered.exists(small.sha256, SCOPE)).toBe(true);
    expect(await tiered.exists(large.sha256, SCOPE)).toBe(true);
  });

  it('finds a payload in the other tier when the ref is a bare digest or the threshold changed', async () => {
    const large = await tiered.put(randomBytes(THRESHOLD * 2), 'application/octet-stream', SCOPE);
    const small = await tiered.put(randomBytes(16), 'application/octet-stream', SCOPE);
    const lowered = new TieredPayloadStore(new PgPayloadStore(db), objects, 8);

    expect((await tiered.get(large.sha256, SCOPE)).byteLength).toBe(THRESHOLD * 2);
    expect((await lowered.get(small, SCOPE)).byteLength).toBe(16);
    await expect(tiered.get(sha256Hex('nowhere'), SCOPE)).rejects.toBeInstanceOf(PayloadNotFoundError);
  });
});
