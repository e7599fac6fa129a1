import { EventType, type ExecutionState, type JsonObject, type LedgerEvent, type RerunOrigin } from '@noetl/event-kernel';
import type { Queryable } from '@noetl/storage';
import type { CatalogService } from '../catalog/catalog.service';
import type { Ledger } from '../ledger';
import { foldLedger } from '../projection/fold-ledger';
import { notFound, RuntimeError } from '../runtime-error';

/** What a rerun takes from its original: the playbook version, the workload, and from a step on, the state before it. */
export interface RerunSource {
  catalogId: string;
  /** The original's workload; the rerun's payload is merged over it. */
  workload: JsonObject;
  origin: RerunOrigin;
  /** From a step: the original's step results and ctx as they stood just before the step was first entered. */
  seed?: { results: ExecutionState['results']; ctx: JsonObject };
}

/**
 * Reads what a rerun of `executionId` copies, from the original's ledger
 * (the caller checked that it exists and has ended). From the start it
 * copies the workload alone. From a step it folds the ledger up to that
 * step's first `step.enter`: the state there is what the original had done
 * before the step ran, and `GET /api/replay/state` at `as_of_event_id` shows
 * the same. A step the playbook lacks, or one the original never entered
 * (or whose events a purge removed), is `invalid_request`.
 */
export async function rerunSource(
  q: Queryable,
  ledger: Ledger,
  catalog: CatalogService,
  executionId: string,
  fromStep: string | undefined,
): Promise<RerunSource> {
  const [first] = await ledger.readAfter(q, executionId, 0, 1);
  if (first?.event_type !== EventType.ExecutionStarted) throw notFound('execution', executionId);
  const { catalog_id: catalogId, workload, path, version } = first.payload;
  if (fromStep === undefined) return { catalogId, workload, origin: { execution_id: executionId } };

  const { playbook } = await catalog.resolve({ catalog_id: catalogId }, q);
  if (!playbook.steps.some((step) => step.name === fromStep)) {
    throw new RuntimeError(
      'invalid_request',
      `"${fromStep}" is not a step of ${path} version ${version}; its steps are ${playbook.steps.map((step) => step.name).join(', ')}`,
    );
  }
  let reached = false;
  const isEntry = (event: LedgerEvent) => event.event_type === EventType.StepEnter && event.payload.step === fromStep;
  const folded = await foldLedger(
    q,
    ledger,
    executionId,
    { state: undefined, version: 0 },
    { within: (event) => !(reached ||= isEntry(event)) },
  );
  if (!reached || !folded.state || !folded.last) {
    throw new RuntimeError(
      'invalid_request',
      `step "${fromStep}" never started in execution ${executionId} (or its events were purged): rerun from a step it reached, or from the start`,
    );
  }
  return {
    catalogId,
    workload,
    origin: { execution_id: executionId, from_step: fromStep, as_of_event_id: folded.last.event_id, as_of_position: folded.version },
    seed: { results: folded.state.results, ctx: folded.state.ctx },
  };
}
