import type { ExecutionState } from '@noetl/event-kernel';
import type { Database } from '@noetl/storage';
import type { Ledger } from '../ledger';
import type { ExecutionStates } from '../state/execution-states';

/** How far the consumers of a streamed result are behind its producer (see `ControlPlane.streamBacklog`). */
export interface StreamBacklog {
  /** Chunks reported and not yet consumed: unplanned by the scheduler, or with an `on: call.partial` run still going. */
  pending_chunks: number;
}

/**
 * The chunks of `commandId`'s stream still in flight (DSL.md s3 `stream`,
 * issue 27 item 5): those whose `call.partial` the scheduler has not planned
 * (read from the ledger's tail past the execution's planned version), plus
 * those whose runs (the steps their `on: call.partial` arcs entered) have
 * not ended. A chunk no arc fires for is done once planned. The two sets
 * are apart: a chunk's runs are entered by the pass that plans it.
 */
export async function streamBacklog(
  deps: { db: Database; ledger: Ledger; states: ExecutionStates },
  executionId: string,
  commandId: string,
): Promise<StreamBacklog> {
  const unplanned = await deps.ledger.unplannedPartials(deps.db, executionId, commandId);
  const consuming = await deps.states.read(deps.db, executionId, (state) => (state ? chunksBeingConsumed(state, commandId) : 0));
  return { pending_chunks: unplanned + consuming };
}

/** Distinct chunks of the command with a run of an `on: call.partial` arc still RUNNING. */
export function chunksBeingConsumed(state: ExecutionState, commandId: string): number {
  const chunks = new Set<number>();
  for (const run of Object.values(state.runs)) {
    if (run.status === 'RUNNING' && run.chunk?.command_id === commandId) chunks.add(run.chunk.chunk_index);
  }
  return chunks.size;
}
