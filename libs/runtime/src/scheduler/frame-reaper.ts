import { EventType } from '@noetl/event-kernel';
import type { Database } from '@noetl/storage';
import { Subjects, type Bus } from '../bus/bus';
import { frameMaxAttempts, lockFrame } from '../control-plane/frame-row';
import type { Ledger } from '../ledger';

const SWEEP_LIMIT = 100;

/**
 * Frames whose lease ran out (DESIGN.md invariant 4, s4 "Reaper"): the
 * frame is `frame.abandoned` and claimable again, whole, or `frame.failed`
 * once it used up its policy's `max_attempts`. Returns the executions to plan
 * and the stages to offer again.
 */
export async function reapExpiredFrames(db: Database, ledger: Ledger): Promise<{ executions: string[]; stages: { stage_id: string; execution_id: string }[] }> {
  const expired = await db.query<{ frame_id: string }>(
    `SELECT frame_id FROM noetl.frame
      WHERE status IN ('CLAIMED', 'RUNNING') AND lease_until < now() AND tenant_id = $1 AND organization_id = $2
      ORDER BY lease_until LIMIT $3`,
    [ledger.scope.tenantId, ledger.scope.organizationId, SWEEP_LIMIT],
  );
  const executions = new Set<string>();
  const stages = new Map<string, string>();
  for (const { frame_id: id } of expired) {
    const frameId = String(id);
    const reaped = await db.transaction(async (q) => {
      const frame = await lockFrame(q, ledger.scope, frameId, (executionId) => ledger.lockStream(q, executionId));
      if (!frame || (frame.status !== 'CLAIMED' && frame.status !== 'RUNNING') || !frame.lease_until || frame.lease_until >= ledger.now()) return undefined;
      // An ended execution's frames are not reissued; nothing follows its end.
      if (await ledger.hasEnded(q, frame.execution_id)) return undefined;
      const at = { executionId: frame.execution_id, step: frame.step_name, loopId: frame.loop_id, stageId: frame.stage_id, frameId };
      if (frame.attempts >= frameMaxAttempts(frame.frame_policy)) {
        await ledger.append(q, [
          {
            type: EventType.FrameFailed,
            ...at,
            payload: {
              frame_id: frameId,
              stage_id: frame.stage_id,
              frame_index: frame.frame_index,
              attempt: frame.attempts,
              error: { kind: 'lease_expired', message: `frame ${frame.frame_index} lost its lease on each of its ${frame.attempts} attempts`, step: frame.step_name },
            },
          },
        ]);
        await q.query(`UPDATE noetl.frame SET status = 'FAILED', lease_until = NULL, completed_at = now() WHERE frame_id = $1::bigint`, [frameId]);
      } else {
        await ledger.append(q, [
          {
            type: EventType.FrameAbandoned,
            ...at,
            payload: { frame_id: frameId, attempt: frame.attempts, reason: 'lease expired', ...(frame.owner_worker ? { worker_id: frame.owner_worker } : {}) },
          },
        ]);
        await q.query(`UPDATE noetl.frame SET status = 'PENDING', owner_worker = NULL, lease_until = NULL WHERE frame_id = $1::bigint`, [frameId]);
      }
      return frame;
    });
    if (reaped) {
      executions.add(reaped.execution_id);
      stages.set(reaped.stage_id, reaped.execution_id);
    }
  }
  return { executions: [...executions], stages: [...stages].map(([stage_id, execution_id]) => ({ stage_id, execution_id })) };
}

/** Open stages with pending frames and a free slot that nobody took for a while: offered again. */
export async function reofferStages(db: Database, ledger: Ledger, bus: Bus, afterMs: number): Promise<void> {
  const rows = await db.query<{ stage_id: string; execution_id: string; slots: number }>(
    `UPDATE noetl.stage s SET notified_at = now()
       FROM (SELECT st.stage_id,
                    st.max_in_flight - (SELECT count(*) FROM noetl.frame f WHERE f.stage_id = st.stage_id AND f.status IN ('CLAIMED', 'RUNNING'))::int AS slots
               FROM noetl.stage st
              WHERE st.status = 'OPEN' AND st.tenant_id = $1 AND st.organization_id = $2
                AND (st.notified_at IS NULL OR st.notified_at < now() - make_interval(secs => $3::double precision / 1000))
                AND (st.mode = 'cursor' OR EXISTS (SELECT 1 FROM noetl.frame f WHERE f.stage_id = st.stage_id AND f.status = 'PENDING'))
              LIMIT $4) free
      WHERE s.stage_id = free.stage_id AND free.slots > 0
      RETURNING s.stage_id, s.execution_id, free.slots`,
    [ledger.scope.tenantId, ledger.scope.organizationId, afterMs, SWEEP_LIMIT],
  );
  for (const row of rows) {
    for (let slot = 0; slot < row.slots; slot++) {
      bus.publish(Subjects.frames(ledger.scope.tenantId), { stage_id: String(row.stage_id), execution_id: String(row.execution_id) });
    }
  }
}
