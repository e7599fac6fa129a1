import { randomBytes } from 'node:crypto';
import { loadConfig } from '@noetl/config';
import { LIST_PARTS_MEDIA_TYPE, LOOP_RESULT_MEDIA_TYPE, type PayloadRef } from '@noetl/event-kernel';
import { putJson, S3PayloadStore, type PayloadReferenceRepository, type Queryable } from '@noetl/storage';
import { startS3TestServer, type S3TestServer } from '../../../../test/support/s3-test-server';
import { waitFor } from '../../../../test/support/wait-for';
import { collectUnreferencedObjects } from './collect-unreferenced-objects';

const SCOPE = { tenantId: 'tenant-gc', organizationId: 'org-gc' };
/** The references come from a stand-in here: what is tested is the bucket side. */
const NO_DATABASE = {} as Queryable;

/** References found by the ledger scan: none directly, after `during` ran (what another process does meanwhile), and `manifests`. */
const nothingReferenced = (
  during: () => Promise<unknown> = async () => undefined,
  manifests: PayloadRef[] = [],
): PayloadReferenceRepository =>
  ({
    referencedAmong: async () => (await during(), new Set<string>()),
    refsOfTypes: async () => manifests,
  }) as unknown as PayloadReferenceRepository;

describe('retention of the object tier', () => {
  let server: S3TestServer;
  let store: S3PayloadStore;

  beforeAll(async () => {
    server = await startS3TestServer();
    // Grace 0: every object is old at once, and a put that finds one writes it again.
    store = await S3PayloadStore.connect(loadConfig({ ...server.env, NOETL_S3_GC_GRACE_SECONDS: '0' }).payloads.s3!);
  });
  afterAll(async () => {
    store?.close();
    await server?.close();
  });

  /** Puts bytes, then waits for the clock's next second (object ages are dated to the second). */
  async function oldObject(): Promise<{ bytes: Buffer; sha256: string }> {
    const bytes = randomBytes(512);
    const { sha256 } = await store.put(bytes, 'application/octet-stream', SCOPE);
    const second = Math.floor(Date.now() / 1000);
    await waitFor(async () => Math.floor(Date.now() / 1000) > second, { timeoutMs: 2000, description: 'the next second' });
    return { bytes, sha256 };
  }

  it('deletes an unreferenced object past the grace period and keeps a younger one', async () => {
    const { sha256 } = await oldObject();

    const kept = await collectUnreferencedObjects(
      NO_DATABASE,
      SCOPE,
      { objects: store, payloads: store, references: nothingReferenced(), graceMs: 60_000 },
      new Date(),
    );
    expect(kept).toEqual([]);
    expect(await store.exists(sha256, SCOPE)).toBe(true);

    const deleted = await collectUnreferencedObjects(
      NO_DATABASE,
      SCOPE,
      { objects: store, payloads: store, references: nothingReferenced(), graceMs: 0 },
      new Date(),
    );
    expect(deleted).toContain(sha256);
    expect(await store.exists(sha256, SCOPE)).toBe(false);
  });

  it('keeps an object that a put reused while the collection ran (the put wrote it again)', async () => {
    const { bytes, sha256 } = await oldObject();
    const before = server.requests().length;
    const reuse = () => store.put(bytes, 'application/octet-stream', SCOPE);

    const deleted = await collectUnreferencedObjects(
      NO_DATABASE,
      SCOPE,
      { objects: store, payloads: store, references: nothingReferenced(reuse), graceMs: 0 },
      new Date(),
    );

    expect(deleted).not.toContain(sha256);
    expect(await store.exists(sha256, SCOPE)).toBe(true);
    expect(
      server
        .requests()
        .slice(before)
        .filter((r) => r.startsWith('PUT ') && r.split('?')[0]!.endsWith(sha256)),
    ).toHaveLength(1);
  });

  it('keeps what a named manifest lists, through a manifest of manifests, and deletes the rest', async () => {
    const { sha256: partA } = await oldObject();
    const { sha256: partB } = await oldObject();
    const { sha256: stray } = await oldObject();
    const part = (sha: string) => ({ ref: { sha256: sha, media_type: 'application/json', bytes: 512 }, items: 1 });
    const inner = await store.put(JSON.stringify({ items: 1, parts: [part(partB)] }), LIST_PARTS_MEDIA_TYPE, SCOPE);
    const outer = await putJson(store, { items: 2, parts: [part(partA), { ref: inner, items: 1 }], stats: {} }, SCOPE);
    const manifest = { ...outer, media_type: LOOP_RESULT_MEDIA_TYPE };

    const deleted = await collectUnreferencedObjects(
      NO_DATABASE,
      SCOPE,
      { objects: store, payloads: store, references: nothingReferenced(undefined, [manifest]), graceMs: 0 },
      new Date(),
    );

    expect(deleted).toContain(stray);
    expect(deleted).not.toEqual(expect.arrayContaining([partA]));
    expect(deleted).not.toEqual(expect.arrayContaining([partB]));
    expect(await store.exists(partA, SCOPE)).toBe(true);
    expect(await store.exists(partB, SCOPE)).toBe(true);
  });

  it('deletes nothing when a named manifest cannot be read', async () => {
    const { sha256: part } = await oldObject();
    const broken = await store.put('not json', LIST_PARTS_MEDIA_TYPE, SCOPE);

    const run = collectUnreferencedObjects(
      NO_DATABASE,
      SCOPE,
      { objects: store, payloads: store, references: nothingReferenced(undefined, [broken]), graceMs: 0 },
      new Date(),
    );

    await expect(run).rejects.toThrow(SyntaxError);
    expect(await store.exists(part, SCOPE)).toBe(true);
  });
});
