import type { FrameStatus, JsonObject } from '@noetl/event-kernel';
import type { Queryable, TenantScope } from '@noetl/storage';

/** `noetl.frame` joined with what its stage says about it. */
export interface FrameRow {
  frame_id: string;
  stage_id: string;
  execution_id: string;
  frame_index: number;
  cursor: { first?: number };
  row_count: number;
  status: FrameStatus;
  owner_worker: string | null;
  lease_until: Date | null;
  attempts: number;
  loop_id: string;
  step_name: string;
  frame_policy: JsonObject;
}

const FRAME_COLUMNS = `f.frame_id, f.stage_id, f.execution_id, f.frame_index, f.cursor, f.row_count, f.status, f.owner_worker,
  f.lease_until, f.attempts, s.loop_id, s.step_name, s.frame_policy`;

function normalise(row: FrameRow): FrameRow {
  return { ...row, frame_id: String(row.frame_id), stage_id: String(row.stage_id), execution_id: String(row.execution_id), loop_id: String(row.loop_id) };
}

/** The frame row, locked, after its execution's stream lock (taken by `lockStream`, always first). */
export async function lockFrame(
  q: Queryable,
  scope: TenantScope,
  frameId: string,
  lockStream: (executionId: string) => Promise<void>,
): Promise<FrameRow | undefined> {
  if (!/^\d{1,19}$/.test(frameId)) return undefined;
  const [owner] = await q.query<{ execution_id: string }>(
    'SELECT execution_id FROM noetl.frame WHERE frame_id = $1::bigint AND tenant_id = $2 AND organization_id = $3',
    [frameId, scope.tenantId, scope.organizationId],
  );
  if (!owner) return undefined;
  await lockStream(String(owner.execution_id));
  const [row] = await q.query<FrameRow>(
    `SELECT ${FRAME_COLUMNS} FROM noetl.frame f JOIN noetl.stage s ON s.stage_id = f.stage_id
      WHERE f.frame_id = $1::bigint FOR UPDATE OF f`,
    [frameId],
  );
  return row ? normalise(row) : undefined;
}

export interface StageRow {
  stage_id: string;
  execution_id: string;
  loop_id: string;
  step_name: string;
  status: string;
  mode: 'sequential' | 'parallel' | 'cursor';
  max_in_flight: number;
  frame_policy: JsonObject;
  frame_count: number | null;
}

/** The stage row, locked, after its execution's stream lock. */
export async function lockStage(
  q: Queryable,
  scope: TenantScope,
  stageId: string,
  lockStream: (executionId: string) => Promise<void>,
): Promise<StageRow | undefined> {
  if (!/^\d{1,19}$/.test(stageId)) return undefined;
  const [owner] = await q.query<{ execution_id: string }>(
    'SELECT execution_id FROM noetl.stage WHERE stage_id = $1::bigint AND tenant_id = $2 AND organization_id = $3',
    [stageId, scope.tenantId, scope.organizationId],
  );
  if (!owner) return undefined;
  await lockStream(String(owner.execution_id));
  const [row] = await q.query<StageRow>(
    `SELECT stage_id, execution_id, loop_id, step_name, status, mode, max_in_flight, frame_policy, frame_count
       FROM noetl.stage WHERE stage_id = $1::bigint FOR UPDATE`,
    [stageId],
  );
  return row ? { ...row, stage_id: String(row.stage_id), execution_id: String(row.execution_id), loop_id: String(row.loop_id) } : undefined;
}

/** Lease of a frame from its stage's policy (`lease_seconds`), else the default. */
export function frameLeaseMs(policy: JsonObject, fallbackMs: number): number {
  const seconds = Number(policy['lease_seconds']);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : fallbackMs;
}

/** Max whole-frame attempts from the stage's policy (`max_attempts`, default 3). */
export function frameMaxAttempts(policy: JsonObject): number {
  const attempts = Number(policy['max_attempts']);
  return Number.isInteger(attempts) && attempts > 0 ? attempts : 3;
}
