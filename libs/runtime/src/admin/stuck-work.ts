import { EventType } from '@noetl/event-kernel';
import type { Queryable, TenantScope } from '@noetl/storage';
import { frameMaxAttempts } from '../control-plane/frame-row';
import type { StuckReason, StuckWork } from './admin-types';

/** Work waiting for a worker longer than this is listed as `unclaimed` (the sweep re-offers it every few seconds). */
export const UNCLAIMED_AFTER_MS = 60_000;

interface StuckRow {
  id: string;
  execution_id: string;
  step: string;
  status: string;
  attempt: number;
  max_attempts: number;
  worker_id: string | null;
  lease_until: Date | null;
  reason: StuckReason;
}

/*
 * Both queries share the rules of StuckReason. `last_signal` is the holder's
 * latest sign of life (its claim, start or heartbeat); `lease_until -
 * last_signal` is then the lease it asked for, and a worker beats every third
 * of it. Work of an execution that is no longer RUNNING is left out: nothing
 * may act on it any more.
 */

/** Open commands that are stuck, oldest first. */
export async function stuckCommands(q: Queryable, scope: TenantScope, limit: number): Promise<StuckWork[]> {
  const rows = await q.query<StuckRow>(
    `SELECT * FROM (
       SELECT c.command_id AS id, c.execution_id, c.step, c.status, c.attempt, c.max_attempts, c.worker_id, c.lease_until,
              CASE
                WHEN c.status IN ('CLAIMED', 'RUNNING') AND c.lease_until < now() THEN 'lease_expired'
                WHEN c.status = 'RUNNING' AND now() - signal.at > (c.lease_until - signal.at) * 2 / 3 THEN 'silent_heartbeat'
                WHEN c.status = 'ISSUED' AND c.created_at < now() - make_interval(secs => $4::double precision / 1000) THEN 'unclaimed'
              END AS reason
         FROM noetl.command c
         JOIN noetl.execution e ON e.execution_id = c.execution_id AND e.status = 'RUNNING'
         CROSS JOIN LATERAL (
           SELECT GREATEST(c.claimed_at, c.started_at,
                           (SELECT max(ev.event_time) FROM noetl.event ev
                             WHERE ev.execution_id = c.execution_id AND ev.event_type = $5 AND ev.command_id = c.command_id)) AS at
         ) signal
        WHERE c.status IN ('ISSUED', 'CLAIMED', 'RUNNING') AND c.tenant_id = $1 AND c.organization_id = $2
     ) stuck
     WHERE reason IS NOT NULL ORDER BY id LIMIT $3`,
    [scope.tenantId, scope.organizationId, limit, UNCLAIMED_AFTER_MS, EventType.CommandHeartbeat],
  );
  return rows.map((row) => toStuckWork('command', row));
}

/** Open frames that are stuck, oldest first. A frame's attempts are its claims; its budget is its stage's frame policy. */
export async function stuckFrames(q: Queryable, scope: TenantScope, limit: number): Promise<StuckWork[]> {
  const rows = await q.query<StuckRow>(
    `SELECT * FROM (
       SELECT f.frame_id AS id, f.execution_id, s.step_name AS step, f.status, f.attempts AS attempt, policy.max_attempts,
              f.owner_worker AS worker_id, f.lease_until,
              CASE
                WHEN f.status IN ('CLAIMED', 'RUNNING') AND f.lease_until < now() THEN 'lease_expired'
                WHEN f.status = 'RUNNING' AND now() - signal.at > (f.lease_until - signal.at) * 2 / 3 THEN 'silent_heartbeat'
                WHEN f.status = 'PENDING' AND f.attempts >= policy.max_attempts THEN 'attempts_exhausted'
                WHEN f.status = 'PENDING' AND f.created_at < now() - make_interval(secs => $4::double precision / 1000) THEN 'unclaimed'
              END AS reason
         FROM noetl.frame f
         JOIN noetl.execution e ON e.execution_id = f.execution_id AND e.status = 'RUNNING'
         JOIN noetl.stage s ON s.stage_id = f.stage_id
         CROSS JOIN LATERAL (
           -- frameMaxAttempts in SQL: a positive whole number, else the default.
           SELECT CASE WHEN jsonb_typeof(s.frame_policy -> 'max_attempts') = 'number'
                        AND (s.frame_policy ->> 'max_attempts')::numeric >= 1
                        AND (s.frame_policy ->> 'max_attempts')::numeric % 1 = 0
                       THEN (s.frame_policy ->> 'max_attempts')::numeric::int ELSE $6::int END AS max_attempts
         ) policy
         CROSS JOIN LATERAL (
           SELECT COALESCE((SELECT max(ev.event_time) FROM noetl.event ev
                             WHERE ev.execution_id = f.execution_id AND ev.frame_id = f.frame_id AND ev.event_type = ANY($5::text[])),
                           f.created_at) AS at
         ) signal
        WHERE f.status IN ('PENDING', 'CLAIMED', 'RUNNING') AND f.tenant_id = $1 AND f.organization_id = $2
     ) stuck
     WHERE reason IS NOT NULL ORDER BY id LIMIT $3`,
    [
      scope.tenantId,
      scope.organizationId,
      limit,
      UNCLAIMED_AFTER_MS,
      [EventType.FrameDispatched, EventType.FrameStarted, EventType.FrameHeartbeat],
      frameMaxAttempts({}), // the default, for a policy that names none
    ],
  );
  return rows.map((row) => toStuckWork('frame', row));
}

function toStuckWork(kind: StuckWork['kind'], row: StuckRow): StuckWork {
  return {
    kind,
    id: String(row.id),
    execution_id: String(row.execution_id),
    step: row.step,
    status: row.status,
    attempt: row.attempt,
    max_attempts: row.max_attempts,
    worker_id: row.worker_id,
    lease_until: row.lease_until?.toISOString() ?? null,
    reason: row.reason,
  };
}
