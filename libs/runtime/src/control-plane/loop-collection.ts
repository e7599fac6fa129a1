import type { Json, LoopState } from '@noetl/event-kernel';
import type { PayloadCache } from '../state/payload-cache';

/** A loop's collection: inline on its `loop.started`, or read from the payload store by its ref (invariant 6). */
export async function loopCollection(loop: Pick<LoopState, 'collection' | 'collectionRef'>, payloads: PayloadCache): Promise<Json[]> {
  if (loop.collection) return loop.collection;
  const stored = loop.collectionRef ? await payloads.get(loop.collectionRef) : [];
  return Array.isArray(stored) ? stored : [];
}
