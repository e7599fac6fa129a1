import type { ExecutionState } from '@noetl/event-kernel';
import type { Database } from '@noetl/storage';
import type { Ledger } from '../ledger';
import type { ExecutionStates } from '../state/execution-states';

/** How far the consumers of a streamed result are behind its producer (see `ControlPlane.streamBacklog`). */
export interface StreamBacklog {
  /** Chunks reported and not yet consumed: unplanned by the scheduler, or with an `on: call.partial` run still going. */
  pending_chunks: number;
}

/** How often the backlog is read again when the scheduler planned between its two halves. */
const CONSISTENT_READ_TRIES = 5;

/**
 * The chunks of `commandId`'s stream still in flight (DSL.md s3 `stream`,
 * issue 27 item 5): those whose `call.partial` the scheduler has not planned
 * (read from the ledger's tail past the execution's planned version), plus
 * those whose runs (the steps their `on: call.partial` arcs entered) have
 * not ended. A chunk no arc fires for is done once planned. The two sets
 * are apart: a chunk's runs are entered by the pass that plans it.
 *
 * The halves are two reads, so a pass committed between them would count
 * the chunks it planned twice (unplanned in the first, consuming in the
 * second). The planned version is read on both sides of the runs, and the
 * whole is read again if it moved (a sequence lock): the count is exact.
 * Should the scheduler keep moving, the count from before the runs is an
 * overcount, which only holds the producer back a little longer.
 */
export async function streamBacklog(
  deps: { db: Database; ledger: Ledger; states: ExecutionStates },
  executionId: string,
  commandId: string,
): Promise<StreamBacklog> {
  let before = await deps.ledger.unplannedPartials(deps.db, executionId, commandId);
  for (let tries = 1; ; tries++) {
    const consuming = await deps.states.read(deps.db, executionId, (state) => (state ? chunksBeingConsumed(state, commandId) : 0));
    const after = await deps.ledger.unplannedPartials(deps.db, executionId, commandId);
    if (after.plannedVersion === before.plannedVersion) return { pending_chunks: after.count + consuming };
    if (tries === CONSISTENT_READ_TRIES) return { pending_chunks: before.count + consuming };
    before = after;
  }
}

/** Distinct chunks of the command with a run of an `on: call.partial` arc still RUNNING. */
export function chunksBeingConsumed(state: ExecutionState, commandId: string): number {
  const chunks = new Set<number>();
  for (const run of Object.values(state.runs)) {
    if (run.status === 'RUNNING' && run.chunk?.command_id === commandId) chunks.add(run.chunk.chunk_index);
  }
  return chunks.size;
}
