import { runsAll, samePool, type WorkNeeds } from '../bus/offers';
import { RuntimeError } from '../runtime-error';
import type { ClaimRequest } from './control-plane';

/**
 * Refuses a claim by a worker that may not take the work (`what`: "command
 * 12", "stage 7"): of another pool (`wrong_pool`; a worker without a pool
 * takes only work without one, and the reverse), or needing a tool kind it
 * does not run (`tool_not_allowed`). Both are 403 at the API.
 */
export function assertClaimFits(what: string, request: ClaimRequest, work: WorkNeeds): void {
  if (!samePool(request.pool, work.pool)) {
    const wanted = work.pool ? `pool "${work.pool}"` : 'no pool';
    const has = request.pool ? `pool "${request.pool}"` : 'no pool (NOETL_WORKER_POOL unset)';
    throw new RuntimeError('wrong_pool', `${what} is for ${wanted}; worker ${request.worker_id} serves ${has}`);
  }
  if (request.tools && !runsAll({ tools: request.tools }, work.kinds)) {
    throw new RuntimeError(
      'tool_not_allowed',
      `${what} runs ${work.kinds.join(', ')}; worker ${request.worker_id} runs only ${request.tools.join(', ')}`,
    );
  }
}
