import { ChainVerifier, REDUCER_VERSION, type ChainedEvent, type ExecutionState } from '@noetl/event-kernel';
import type { Database, ProjectionRepository } from '@noetl/storage';
import type { Ledger } from '../ledger';
import { notFound } from '../runtime-error';

const PAGE = 1000;
const ID = /^\d{1,19}$/;

/** `GET /api/executions/{id}/verify`, `noetl verify`: whether an execution's ledger is what was written. */
export interface LedgerVerificationView {
  execution_id: string;
  ok: boolean;
  /** Events checked. */
  events: number;
  /** The position (event id) of the first event found changed, missing before or out of place; null when ok. */
  first_bad_position: string | null;
  reason: string | null;
}

/**
 * Checks an execution's ledger (issue 25 item 3): every event's content
 * against its checksum, every link of the hash chain the database wrote
 * (migration EventHashChain), and the end of the stream against the
 * projection folded from it, which keeps its own copy of how far the ledger
 * went (a removed last event breaks no link).
 */
export class LedgerVerification {
  constructor(
    private readonly db: Database,
    private readonly ledger: Ledger,
    private readonly projections: ProjectionRepository,
  ) {}

  async verify(executionId: string): Promise<LedgerVerificationView> {
    if (!ID.test(executionId)) throw notFound('execution', executionId);
    const purged = await this.ledger.wasPurged(this.db, executionId);
    const verifier = new ChainVerifier({ purged });
    let last: ChainedEvent | undefined;
    let page: ChainedEvent[];
    // A page at a time, while pages come back full.
    do {
      page = await this.ledger.readChain(this.db, executionId, last?.event.stream_version ?? 0, PAGE);
      verifier.add(page);
      last = page.at(-1) ?? last;
    } while (page.length === PAGE);
    if (!last) throw notFound('execution', executionId);
    const verdict = verifier.verdict();
    const view = { execution_id: executionId, events: verdict.events };
    if (!verdict.ok) return { ...view, ok: false, first_bad_position: verdict.firstBadPosition, reason: verdict.reason };
    const projected = await this.projections.get<ExecutionState>(this.db, this.ledger.scope, executionId);
    if (projected && projected.version > last.event.stream_version) {
      return {
        ...view,
        ok: false,
        first_bad_position: last.event.event_id,
        reason: `the ledger ends at version ${last.event.stream_version}, but its projection (reducer ${REDUCER_VERSION}) was folded to version ${projected.version}: events were removed from its end`,
      };
    }
    return { ...view, ok: true, first_bad_position: null, reason: null };
  }
}
