import type { IdGenerator, LoopState, PayloadOf } from '@noetl/event-kernel';
import { EventType } from '@noetl/event-kernel';
import type { Queryable, TenantScope } from '@noetl/storage';

type StageOpened = PayloadOf<typeof EventType.StageOpened>;

/**
 * The stage row of a `stage.opened` and, for a collection loop, its frames
 * cut from the collection: frame i covers rows [i * max_rows, min(size,
 * (i + 1) * max_rows)). A cursor loop's frames are minted as they are
 * claimed. Returns how many frames may be offered at once.
 */
export async function insertStage(
  q: Queryable,
  scope: TenantScope,
  ids: IdGenerator,
  executionId: string,
  openedEventId: string,
  stage: StageOpened,
  loop: LoopState | undefined,
): Promise<number> {
  const maxRows = Number(stage.frame_policy['max_rows'] ?? 1) || 1;
  const mode = loop?.mode ?? 'sequential';
  const maxInFlight = mode === 'sequential' ? 1 : Math.max(1, loop?.maxInFlight ?? 1);
  const inserted = await q.query(
    `INSERT INTO noetl.stage (stage_id, tenant_id, organization_id, execution_id, loop_id, step_name, kind, frame_policy, frame_count,
                              opened_event_id, mode, max_in_flight, size, notified_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13, now())
     ON CONFLICT (stage_id) DO NOTHING RETURNING stage_id`,
    [
      stage.stage_id,
      scope.tenantId,
      scope.organizationId,
      executionId,
      stage.loop_id,
      stage.step,
      stage.kind,
      JSON.stringify(stage.frame_policy),
      stage.frame_count,
      openedEventId,
      mode,
      maxInFlight,
      loop?.size ?? null,
    ],
  );
  if (inserted.length === 0) return 0;
  const frameCount = stage.frame_count ?? 0;
  if (frameCount > 0) {
    const size = loop?.size ?? frameCount * maxRows;
    const frameIds = Array.from({ length: frameCount }, () => ids.next());
    await q.query(
      `INSERT INTO noetl.frame (frame_id, tenant_id, organization_id, stage_id, execution_id, frame_index, cursor, row_count)
       SELECT id, $2, $3, $4, $5, i - 1,
              jsonb_build_object('first', (i - 1) * $6::int),
              LEAST($6::int, $7::int - (i - 1) * $6::int)
         FROM unnest($1::bigint[]) WITH ORDINALITY AS f(id, i)`,
      [frameIds, scope.tenantId, scope.organizationId, stage.stage_id, executionId, maxRows, size],
    );
  }
  return stage.frame_count === null ? maxInFlight : Math.min(maxInFlight, frameCount);
}
