import type { Json, LoopState } from '@noetl/event-kernel';
import type { PayloadStore } from '@noetl/storage';
import type { PayloadCache } from '../state/payload-cache';

/** A loop's collection: inline on its `loop.started`, or read from the payload store by its ref (invariant 6), through `via` when given. */
export async function loopCollection(loop: Pick<LoopState, 'collection' | 'collectionRef'>, payloads: PayloadCache, via?: PayloadStore): Promise<Json[]> {
  if (loop.collection) return loop.collection;
  const stored = loop.collectionRef ? await payloads.get(loop.collectionRef, via) : [];
  return Array.isArray(stored) ? stored : [];
}
