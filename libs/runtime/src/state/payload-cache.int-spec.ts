import { FsPayloadStore, putJson } from '@noetl/storage';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PayloadCache } from './payload-cache';

const SCOPE = { tenantId: 't', organizationId: 'o' };

/** Reads are counted on a real filesystem store: a cached value is not read again. */
class CountingStore extends FsPayloadStore {
  reads = 0;
  override async get(...args: Parameters<FsPayloadStore['get']>): Promise<Buffer> {
    this.reads++;
    return super.get(...args);
  }
}

describe('PayloadCache', () => {
  const root = mkdtempSync(join(tmpdir(), 'noetl-payload-cache-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('keeps what get reads, and reads a streamed chunk once without keeping it (a long stream does not fill the cache)', async () => {
    const store = new CountingStore(root);
    const cache = new PayloadCache(store, SCOPE);
    const result = await putJson(store, { total: 1 }, SCOPE);
    const chunk = await putJson(store, [{ n: 1 }, { n: 2 }], SCOPE);

    expect(await cache.get(result)).toEqual({ total: 1 });
    expect(await cache.get(result)).toEqual({ total: 1 });
    expect(store.reads).toBe(1);

    expect(await cache.readOnce(chunk)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await cache.readOnce(chunk)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(store.reads).toBe(3);
    // A value the cache holds anyway is served from it.
    expect(await cache.readOnce(result)).toEqual({ total: 1 });
    expect(store.reads).toBe(3);
  });
});
