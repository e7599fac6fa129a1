import type { ExecutionState } from '@noetl/event-kernel';
import type { Queryable, ProjectionRepository } from '@noetl/storage';
import type { Ledger } from '../ledger';
import { foldLedger } from './fold-ledger';

/**
 * An execution's state as the API reads it (seed 001 P5.1): its projection
 * row, plus the events the projector has not folded yet (none when it keeps
 * up: one row and one empty index probe). A read is therefore current the
 * moment the writer's transaction commits, whatever the projector's lag, and
 * never writes: the projector is the projection's one writer.
 */
export class ProjectedStates {
  constructor(
    private readonly ledger: Ledger,
    private readonly projections: ProjectionRepository,
  ) {}

  /** The state with every event `q` can see; undefined for an execution of no events (unknown, or another tenant's). */
  async read(q: Queryable, executionId: string): Promise<ExecutionState | undefined> {
    const row = await this.projections.get<ExecutionState>(q, this.ledger.scope, executionId);
    const from = row ? { state: row.state, version: row.version } : { state: undefined, version: 0 };
    return (await foldLedger(q, this.ledger, executionId, from)).state;
  }
}
