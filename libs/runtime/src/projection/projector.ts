import { REDUCER_VERSION, stateChecksum, type ExecutionState, type LedgerEvent, type UpcasterRegistry } from '@noetl/event-kernel';
import type { Database, ProjectionRepository } from '@noetl/storage';
import type { Ledger } from '../ledger';
import { foldLedger } from './fold-ledger';
import type { ProjectorMetrics } from './projector-metrics';

export interface ProjectorOptions {
  db: Database;
  ledger: Ledger;
  projections: ProjectionRepository;
  upcasters: UpcasterRegistry;
  metrics: ProjectorMetrics;
  /** The shard label of this projector's metrics. */
  shard: string;
  /** A snapshot is kept each time a projection crosses a multiple of this many events. */
  snapshotEvery: number;
  /** Sees the state after every event folded (the replay gate's recorder); unset in production. */
  observe?: (event: LedgerEvent, state: ExecutionState) => void;
}

/** What one projection pass did. */
export interface Projected {
  executionId: string;
  /** The version projected before the pass, and after it. */
  from: number;
  version: number;
  folded: number;
  /** False when a projection at this version or later was already there. */
  written: boolean;
}

const CACHED_STATES = 256;

/**
 * Folds an execution's events into its projection row with the one reducer
 * (`applyEvent`) after the upcasters, and nothing else. The ledger is the
 * source: a delivered event only says "this execution moved"; the projector
 * folds every event after the version it projected, so a gap in what it was
 * delivered is filled, never skipped, and a duplicate or stale delivery
 * changes nothing (it is counted). States are cached between passes; the
 * cache is an accelerator, the row is what counts.
 */
export class Projector {
  private readonly states = new Map<string, { version: number; state: ExecutionState }>();

  constructor(private readonly options: ProjectorOptions) {}

  /** The fold's identity: a snapshot made by another may not seed a replay. */
  get folding(): { reducerVersion: string; registryDigest: string } {
    return { reducerVersion: REDUCER_VERSION, registryDigest: this.options.upcasters.digest() };
  }

  /** Handles delivered events: each execution they touch is brought up to its ledger; a delivery it had already passed is counted stale. */
  async deliver(events: readonly LedgerEvent[]): Promise<Projected[]> {
    const projected: Projected[] = [];
    for (const executionId of new Set(events.map((event) => event.execution_id))) {
      const outcome = await this.project(executionId);
      const passed = events.filter((event) => event.execution_id === executionId && event.stream_version <= outcome.from).length;
      if (passed > 0) this.options.metrics.stale.inc({ shard: this.options.shard }, passed);
      projected.push(outcome);
    }
    return projected;
  }

  /** Brings the projection of `executionId` up to its last committed event. */
  async project(executionId: string): Promise<Projected> {
    const { db, ledger, projections, metrics, shard } = this.options;
    const base = await this.base(executionId);
    // The fold mutates the cached state: forget it until the row it leads to is written.
    this.states.delete(executionId);
    const { state, version, folded, last } = await foldLedger(db, ledger, this.options.upcasters, executionId, base, this.options.observe ? { observe: this.options.observe } : {});
    if (!state) return { executionId, from: base.version, version, folded, written: false };
    const checksum = stateChecksum(state);
    const written = folded > 0 && (await projections.upsert(db, ledger.scope, { executionId, version, state, checksum }));
    this.remember(executionId, version, state);
    if (folded === 0) return { executionId, from: base.version, version, folded, written };
    if (!written) metrics.stale.inc({ shard });
    else if (Math.floor(version / this.options.snapshotEvery) > Math.floor(base.version / this.options.snapshotEvery)) {
      await projections.saveSnapshot(db, ledger.scope, { executionId, version, state, checksum, ...this.folding });
    }
    metrics.events.inc({ shard }, folded);
    if (last) {
      metrics.lastEventId.set({ shard }, Number(last.event_id));
      metrics.lagMs.set({ shard }, Math.max(0, Date.now() - Date.parse(last.event_time)));
    }
    return { executionId, from: base.version, version, folded, written };
  }

  /** Drops projections (all when no ids are given) and folds them again from the ledger: the same events give the same rows. */
  async rebuild(executionIds?: readonly string[]): Promise<number> {
    const { db, ledger, projections } = this.options;
    const ids = executionIds ?? (await ledger.executionIds(db));
    await projections.delete(db, ledger.scope, executionIds);
    for (const id of ids) this.states.delete(id);
    for (const id of ids) await this.project(id);
    return ids.length;
  }

  private async base(executionId: string): Promise<{ state: ExecutionState | undefined; version: number }> {
    const cached = this.states.get(executionId);
    if (cached) return cached;
    const row = await this.options.projections.get<ExecutionState>(this.options.db, this.options.ledger.scope, executionId);
    return row ? { state: row.state, version: row.version } : { state: undefined, version: 0 };
  }

  private remember(executionId: string, version: number, state: ExecutionState): void {
    this.states.delete(executionId);
    this.states.set(executionId, { version, state });
    if (this.states.size > CACHED_STATES) {
      const oldest = this.states.keys().next().value;
      if (oldest !== undefined) this.states.delete(oldest);
    }
  }
}
