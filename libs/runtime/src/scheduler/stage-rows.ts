import type { IdGenerator, LoopState, PayloadOf } from '@noetl/event-kernel';
import { EventType } from '@noetl/event-kernel';
import type { FrameRepository, Queryable, StageRepository, TenantScope } from '@noetl/storage';
import type { LoopBody } from './materialize';

type StageOpened = PayloadOf<typeof EventType.StageOpened>;

/**
 * The stage row of a `stage.opened` and, for a collection loop, its frames
 * cut from the collection: frame i covers rows [i * max_rows, min(size,
 * (i + 1) * max_rows)). A cursor loop's frames are minted as they are
 * claimed. Returns how many frames may be offered at once.
 */
export async function insertStage(
  q: Queryable,
  world: { scope: TenantScope; ids: IdGenerator; rows: { stageRows: StageRepository; frameRows: FrameRepository } },
  executionId: string,
  openedEventId: string,
  stage: StageOpened & LoopBody,
  loop: LoopState | undefined,
): Promise<number> {
  const maxRows = Number(stage.frame_policy['max_rows'] ?? 1) || 1;
  const mode = loop?.mode ?? 'sequential';
  const maxInFlight = mode === 'sequential' ? 1 : Math.max(1, loop?.maxInFlight ?? 1);
  const { scope, ids, rows } = world;
  const inserted = await rows.stageRows.insert(q, scope, {
    stage_id: stage.stage_id,
    execution_id: executionId,
    loop_id: stage.loop_id,
    step_name: stage.step,
    kind: stage.kind,
    frame_policy: stage.frame_policy,
    frame_count: stage.frame_count,
    opened_event_id: openedEventId,
    mode,
    max_in_flight: maxInFlight,
    size: loop?.size ?? null,
    tools: stage.tools,
    pool: stage.pool,
    credentials: stage.credentials,
  });
  if (!inserted) return 0;
  const frameCount = stage.frame_count ?? 0;
  if (frameCount > 0) {
    const size = loop?.size ?? frameCount * maxRows;
    const frameIds = Array.from({ length: frameCount }, () => ids.next());
    await rows.frameRows.insertForStage(q, scope, { stageId: stage.stage_id, executionId, frameIds, maxRows, size });
  }
  return stage.frame_count === null ? maxInFlight : Math.min(maxInFlight, frameCount);
}
