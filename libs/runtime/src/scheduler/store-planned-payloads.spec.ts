import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  canonicalJson,
  EventType,
  LIST_PARTS_MEDIA_TYPE,
  LOOP_RESULT_MEDIA_TYPE,
  stagedJson,
  type EventDraft,
  type EventTypeName,
  type Json,
  type ListParts,
  type PayloadRef,
} from '@noetl/event-kernel';
import { FsPayloadStore, getJson, type TenantScope } from '@noetl/storage';
import { PayloadCache } from '../state/payload-cache';
import { storePlannedPayloads, type PayloadPlacement } from './store-planned-payloads';

const scope: TenantScope = { tenantId: 't1', organizationId: 'o1' };

function started(collection: Json[]): EventDraft<EventTypeName> {
  return {
    type: EventType.LoopStarted,
    executionId: '1',
    payload: {
      loop_id: '2',
      step: 'each',
      run_id: '3',
      epoch: 1,
      size: collection.length,
      collection,
      mode: 'parallel',
      max_in_flight: 2,
      stage_id: '4',
    },
  };
}

describe('storePlannedPayloads and the payload cache', () => {
  let root: string;
  let placement: PayloadPlacement;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'noetl-planned-payloads-'));
    placement = { store: new FsPayloadStore(root), scope, inlineLimitBytes: 64 * 1024, offloadItems: 1000 };
  });
  afterEach(async () => rm(root, { recursive: true, force: true }));

  it('leaves a small collection inline on loop.started', async () => {
    const [draft] = await storePlannedPayloads([started([1, 2, 3])], placement);
    expect(draft?.payload).toMatchObject({ collection: [1, 2, 3] });
  });

  it('stores a collection of more than offloadItems in parts of bounded size, and the cache reads any range of it', async () => {
    const collection = Array.from({ length: 120_000 }, (_, i) => ({ id: i, pad: 'x'.repeat(40) }));
    const [draft] = await storePlannedPayloads([started(collection)], placement);
    const payload = draft?.payload as { collection?: Json[]; collection_ref: { media_type: string } };
    expect(payload).not.toHaveProperty('collection');
    expect(payload.collection_ref.media_type).toBe(LIST_PARTS_MEDIA_TYPE);
    const manifest = await getJson<ListParts>(placement.store, payload.collection_ref as never, scope);
    expect(manifest.items).toBe(120_000);
    expect(manifest.parts.length).toBeGreaterThan(5);
    expect(manifest.parts.reduce((sum, part) => sum + ('items' in part ? part.items : 0), 0)).toBe(120_000);

    const cache = new PayloadCache(placement.store, scope);
    const ref = payload.collection_ref as never;
    // A range that spans two parts, the first item, the last, and past the end.
    const spanFirst = 'items' in manifest.parts[0]! ? manifest.parts[0].items - 2 : 0;
    expect(await cache.slice(ref, spanFirst, 4)).toEqual([0, 1, 2, 3].map((i) => collection[spanFirst + i]));
    expect(await cache.slice(ref, 0, 1)).toEqual([collection[0]]);
    expect(await cache.slice(ref, 119_999, 10)).toEqual([collection[119_999]]);
    expect(await cache.get(ref)).toEqual(collection);
  });

  it('stores a long list of scalars by blocks, each part canonical JSON of about a MiB, and the cache reads it whole and by range', async () => {
    const collection: Json[] = [
      ...Array.from({ length: 400_000 }, (_, i) => (i % 3 === 0 ? `item ${i}` : i)),
      { id: 'last', pad: 'y'.repeat(30_000) },
      true,
    ];
    const [draft] = await storePlannedPayloads([started(collection)], placement);
    const ref = (draft?.payload as { collection_ref: PayloadRef }).collection_ref;
    const manifest = await getJson<ListParts>(placement.store, ref, scope);
    expect(manifest.items).toBe(collection.length);
    let first = 0;
    for (const part of manifest.parts) {
      if (!('ref' in part)) throw new Error('a part of a stored collection is stored');
      const text = (await placement.store.get(part.ref, scope)).toString('utf8');
      // Each part is the canonical JSON of its items, and no part runs far past a MiB.
      expect(text).toBe(canonicalJson(collection.slice(first, first + part.items)));
      expect(text.length).toBeLessThan(1024 * 1024 + 64 * 1024);
      first += part.items;
    }
    expect(first).toBe(collection.length);
    const cache = new PayloadCache(placement.store, scope);
    expect(await cache.slice(ref, 399_999, 3)).toEqual(collection.slice(399_999));
    expect(await cache.get(ref)).toEqual(collection);
  });

  it("stores what a rule staged on its draft, and the cache reads a loop result's parts as the whole result", async () => {
    const part = await placement.store.put('[10,20]', 'application/json', scope);
    const stats = { total: 5, succeeded: 4, success: 4, failed: 1 };
    const staged = stagedJson(
      { items: 5, parts: [{ ref: part, items: 2 }, { nulls: 1 }, { values: [40, 50] }], stats },
      LOOP_RESULT_MEDIA_TYPE,
    );
    const done: EventDraft<EventTypeName> = {
      type: EventType.LoopDone,
      executionId: '1',
      payload: { loop_id: '2', step: 'each', run_id: '3', status: 'partial', total: 5, succeeded: 4, failed: 1, result_ref: staged.ref },
      staged: [staged],
    };
    await storePlannedPayloads([done], placement);
    expect(await new PayloadCache(placement.store, scope).get(staged.ref)).toEqual({ results: [10, 20, null, 40, 50], stats });
  });

  it('keeps no more stored bytes than its capacity, and still reads a value larger than it', async () => {
    const big = await placement.store.put(JSON.stringify(Array.from({ length: 2000 }, (_, i) => i)), 'application/json', scope);
    const small = await placement.store.put('[1]', 'application/json', scope);
    const cache = new PayloadCache(placement.store, scope, { entries: 10, bytes: 64 });
    expect(await cache.get(big)).toHaveLength(2000);
    expect(await cache.get(small)).toEqual([1]);
    await rm(root, { recursive: true, force: true });
    // The small value was kept; the one over a quarter of the capacity was not.
    expect(await cache.get(small)).toEqual([1]);
    await expect(cache.get(big)).rejects.toMatchObject({ code: 'payload_not_found' });
  });
});
