import { frameCommittedV1 } from './frame-committed-v1';
import { UpcasterRegistry } from './upcasters';

/**
 * The upcasters every read of the ledger applies (the scheduler's fold, the
 * projector, replay and the API's reads): one registry, so its digest names the fold.
 */
export function defaultUpcasters(): UpcasterRegistry {
  return new UpcasterRegistry().register(frameCommittedV1);
}
