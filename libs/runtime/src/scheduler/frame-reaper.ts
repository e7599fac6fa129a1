import { EventType } from '@noetl/event-kernel';
import type { Database, FrameRepository, StageRepository } from '@noetl/storage';
import type { Offers } from '../bus/offers';
import { frameMaxAttempts } from '../control-plane/frame-policy';
import type { Ledger } from '../ledger';

const SWEEP_LIMIT = 100;

/**
 * Frames whose lease ran out (DESIGN.md invariant 4, s4 "Reaper"): the
 * frame is `frame.abandoned` and claimable again, whole, or `frame.failed`
 * once it used up its policy's `max_attempts`. Returns the executions to plan
 * and the stages to offer again.
 */
/** A stage a reaped frame belongs to: offered again to its pool's workers that run its kinds. */
interface ReapedStage {
  stage_id: string;
  execution_id: string;
  tools: string[];
  pool: string | null;
}

export async function reapExpiredFrames(
  db: Database,
  ledger: Ledger,
  frameRows: FrameRepository,
): Promise<{ executions: string[]; stages: ReapedStage[] }> {
  const expired = await frameRows.expiredLeases(db, ledger.scope, SWEEP_LIMIT);
  const executions = new Set<string>();
  const stages = new Map<string, ReapedStage>();
  for (const frameId of expired) {
    const reaped = await db.transaction(async (q) => {
      const frame = await frameRows.lock(q, ledger.scope, frameId);
      if (!frame || (frame.status !== 'CLAIMED' && frame.status !== 'RUNNING') || !frame.lease_until || frame.lease_until >= ledger.now())
        return undefined;
      // An ended execution's frames are not reissued; nothing follows its end.
      if (await ledger.hasEnded(q, frame.execution_id)) return undefined;
      const at = { executionId: frame.execution_id, step: frame.step_name, loopId: frame.loop_id, stageId: frame.stage_id, frameId };
      if (frame.attempts >= frameMaxAttempts(frame.frame_policy)) {
        const [failed] = await ledger.append(q, [
          {
            type: EventType.FrameFailed,
            ...at,
            payload: {
              frame_id: frameId,
              stage_id: frame.stage_id,
              frame_index: frame.frame_index,
              attempt: frame.attempts,
              error: {
                kind: 'lease_expired',
                message: `frame ${frame.frame_index} lost its lease on each of its ${frame.attempts} attempts`,
                step: frame.step_name,
              },
            },
          },
        ]);
        await frameRows.markFailed(q, frameId, failed?.event.event_id ?? null);
      } else {
        await ledger.append(q, [
          {
            type: EventType.FrameAbandoned,
            ...at,
            payload: {
              frame_id: frameId,
              attempt: frame.attempts,
              reason: 'lease expired',
              ...(frame.owner_worker ? { worker_id: frame.owner_worker } : {}),
            },
          },
        ]);
        await frameRows.release(q, frameId);
      }
      return frame;
    });
    if (reaped) {
      executions.add(reaped.execution_id);
      stages.set(reaped.stage_id, { stage_id: reaped.stage_id, execution_id: reaped.execution_id, tools: reaped.tools, pool: reaped.pool });
    }
  }
  return { executions: [...executions], stages: [...stages.values()] };
}

/** Open stages with pending frames and a free slot that nobody took for a while: offered again. */
export async function reofferStages(
  db: Database,
  ledger: Ledger,
  stageRows: StageRepository,
  offers: Offers,
  afterMs: number,
): Promise<void> {
  for (const stage of await stageRows.reofferIdle(db, ledger.scope, afterMs, SWEEP_LIMIT)) {
    await offers.stage({
      stageId: stage.stage_id,
      executionId: stage.execution_id,
      slots: stage.slots,
      kinds: stage.tools,
      pool: stage.pool,
    });
  }
}
