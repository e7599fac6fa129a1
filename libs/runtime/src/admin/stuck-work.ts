import type { CommandRepository, FrameRepository, Queryable, StuckRow, TenantScope } from '@noetl/storage';
import { frameMaxAttempts } from '../control-plane/frame-policy';
import type { StuckWork } from './admin-types';

/** Open work waiting for a worker longer than this is listed as `unclaimed`. */
export const UNCLAIMED_AFTER_MS = 60_000;

/** Open commands that are stuck, oldest first. */
export async function stuckCommands(q: Queryable, commandRows: CommandRepository, scope: TenantScope, limit: number): Promise<StuckWork[]> {
  const rows = await commandRows.stuck(q, scope, { limit, unclaimedAfterMs: UNCLAIMED_AFTER_MS });
  return rows.map((row) => toStuckWork('command', row));
}

/** Open frames that are stuck, oldest first; a frame's budget is its stage's frame policy. */
export async function stuckFrames(q: Queryable, frameRows: FrameRepository, scope: TenantScope, limit: number): Promise<StuckWork[]> {
  const rows = await frameRows.stuck(q, scope, {
    limit,
    unclaimedAfterMs: UNCLAIMED_AFTER_MS,
    defaultMaxAttempts: frameMaxAttempts({}),
  });
  return rows.map((row) => toStuckWork('frame', row));
}

function toStuckWork(kind: StuckWork['kind'], row: StuckRow): StuckWork {
  return {
    kind,
    id: row.id,
    execution_id: row.execution_id,
    step: row.step,
    status: row.status,
    attempt: row.attempt,
    max_attempts: row.max_attempts,
    worker_id: row.worker_id,
    lease_until: row.lease_until?.toISOString() ?? null,
    reason: row.reason,
  };
}
