import { loopBodySpec } from '@noetl/dsl';
import type { JsonObject } from '@noetl/event-kernel';
import type { LockedStage, PendingFrame } from '@noetl/storage';
import type { ClaimedCommand, ClaimedFrame } from './control-plane';
import type { LocalControlPlaneDeps } from './local-control-plane';
import { loopItems } from './loop-collection';

/** The render scope and result views of an execution's step (the control plane's, for commands and frames alike). */
export type ScopeOf = (executionId: string, spec: JsonObject) => Promise<Pick<ClaimedCommand, 'scope' | 'result_views'>>;

/** A frame leased in a claim's transaction, before it is assembled for its worker. */
export interface FrameClaim {
  stage: LockedStage;
  frame: PendingFrame;
  leaseMs: number;
  leaseUntil: string;
  attempt: number;
  token: string;
  tokenHash: string;
  workerId: string;
}

/** A claimed frame as its worker receives it (after its claim committed): its rows, loop body and render scope. */
export async function assembleFrame(deps: LocalControlPlaneDeps, scopeOf: ScopeOf, claimed: FrameClaim): Promise<ClaimedFrame> {
  const { stage, frame } = claimed;
  const stageId = stage.stage_id;
  const { db, states, catalog, payloads } = deps;
  const { catalogId, loop } = await states.read(db, stage.execution_id, (state) => {
    const found = state?.loops[stage.loop_id];
    if (!state || !found) throw new Error(`stage ${stageId} has no loop ${stage.loop_id} in its execution's state`);
    // What the frame needs of the loop; the collection is only sliced below, never changed.
    return {
      catalogId: state.catalogId,
      loop: { collection: found.collection, collectionRef: found.collectionRef, size: found.size, runId: found.runId },
    };
  });
  const playbook = await catalog.playbook(catalogId);
  const step = playbook.steps.find((candidate) => candidate.name === stage.step_name);
  if (!step) throw new Error(`stage ${stageId} names step ${stage.step_name}, which its playbook lacks`);
  const first = Number(frame.cursor.first ?? 0);
  const spec = loopBodySpec(playbook, step);
  return {
    frame_id: frame.frame_id,
    lease_token: claimed.token,
    stage_id: stageId,
    loop_id: stage.loop_id,
    execution_id: stage.execution_id,
    step: stage.step_name,
    run_id: loop.runId,
    frame_index: frame.frame_index,
    attempt: claimed.attempt,
    lease_until: claimed.leaseUntil,
    lease_ms: claimed.leaseMs,
    rows: stage.mode === 'cursor' ? [] : structuredClone(await loopItems(loop, first, frame.row_count, payloads)),
    first_index: first,
    total: loop.size,
    spec,
    ...(await scopeOf(stage.execution_id, spec)),
  };
}
