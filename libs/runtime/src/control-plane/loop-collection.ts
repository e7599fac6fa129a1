import type { Json, LoopState } from '@noetl/event-kernel';
import type { PayloadStore } from '@noetl/storage';
import type { PayloadCache } from '../state/payload-cache';

/**
 * Items `first` .. `first + count - 1` of a loop's collection: inline on its
 * `loop.started`, or read from the payload store by its ref (invariant 6),
 * through `via` when given; a collection in parts is read only where those
 * items lie.
 */
export async function loopItems(
  loop: Pick<LoopState, 'collection' | 'collectionRef'>,
  first: number,
  count: number,
  payloads: PayloadCache,
  via?: PayloadStore,
): Promise<Json[]> {
  if (loop.collection) return loop.collection.slice(first, first + count);
  return loop.collectionRef ? payloads.slice(loop.collectionRef, first, count, via) : [];
}
