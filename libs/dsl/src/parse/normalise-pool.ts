import { POOL_NAME } from '../model';
import type { ParseContext } from './parse-context';

/**
 * A worker pool's name where a playbook names one (`tool.pool`, a step's
 * `pool`, `executor.spec.pool`). A mapping is NoETL's connection-pool options
 * (`pool: {name, max_size, ...}` on a postgres tool), which the runtime
 * ignores: undefined, no problem. Anything else that is not a pool name is one.
 */
export function readPool(value: unknown, path: string, ctx: ParseContext): string | undefined {
  if (value === undefined || value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  if (typeof value === 'string' && POOL_NAME.test(value)) return value;
  ctx.problems.add(path, '"pool" must name a worker pool: 1-63 of A-Z a-z 0-9 _ - (not starting with _ or -), written literally');
  return undefined;
}
