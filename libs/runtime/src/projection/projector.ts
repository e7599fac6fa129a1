import { applyEvent, REDUCER_VERSION, stateChecksum, type ExecutionState, type LedgerEvent } from '@noetl/event-kernel';
import type { Database, ProjectionRepository, ProjectionRow } from '@noetl/storage';
import type { Ledger } from '../ledger';
import { foldLedger, type Folded, type FoldPoint } from './fold-ledger';
import type { ProjectorMetrics } from './projector-metrics';

export interface ProjectorOptions {
  db: Database;
  ledger: Ledger;
  projections: ProjectionRepository;
  metrics: ProjectorMetrics;
  /** The shard label of this projector's metrics. */
  shard: string;
  /** A snapshot is kept each time a projection crosses a multiple of this many events. */
  snapshotEvery: number;
  /** Sees the state after every event folded (the replay gate's recorder); unset in production. */
  observe?: (event: LedgerEvent, state: ExecutionState) => void;
}

/** What one projection pass did for one execution. */
export interface Projected {
  executionId: string;
  /** The version projected before the pass, and after it. */
  from: number;
  version: number;
  folded: number;
  /** False when nothing was folded, or a projection at this version or later was already there. */
  written: boolean;
}

interface Pass {
  executionId: string;
  base: FoldPoint;
  folded: Folded;
}

const CACHED_STATES = 1024;

/**
 * Folds an execution's events into its projection row with the one reducer
 * (`applyEvent`) after the upcasters, and nothing else. Delivered events are
 * folded as they come when they follow the projected version; after a gap
 * the projector reads the ledger from that version instead, so a gap is
 * filled, never skipped. A duplicate or stale delivery changes nothing (it
 * is counted). A batch costs one read of the rows it has no state for and
 * one write of every row it moved. States are cached between batches; the
 * cache is an accelerator, the row is what counts.
 */
export class Projector {
  private readonly states = new Map<string, FoldPoint>();

  constructor(private readonly options: ProjectorOptions) {}

  /** The fold's identity: a snapshot made by another may not seed a replay. */
  get folding(): { reducerVersion: string; registryDigest: string } {
    return { reducerVersion: REDUCER_VERSION, registryDigest: this.options.ledger.upcasters.digest() };
  }

  /** Projects a batch of delivered events (in stream order per execution, as the outbox and the stream deliver them). */
  async deliver(events: readonly LedgerEvent[]): Promise<Projected[]> {
    const byExecution = new Map<string, LedgerEvent[]>();
    for (const event of events) {
      const list = byExecution.get(event.execution_id);
      if (list) list.push(event);
      else byExecution.set(event.execution_id, [event]);
    }
    const bases = await this.bases([...byExecution.keys()]);
    const passes: Pass[] = [];
    let stale = 0;
    try {
      for (const [executionId, delivered] of byExecution) {
        const base = bases.get(executionId)!;
        const fresh = delivered.filter((event) => event.stream_version > base.version).sort((a, b) => a.stream_version - b.stream_version);
        stale += delivered.length - fresh.length;
        passes.push({ executionId, base: { ...base }, folded: await this.fold(executionId, base, fresh) });
      }
    } catch (error) {
      for (const executionId of byExecution.keys()) this.states.delete(executionId);
      throw error;
    }
    if (stale > 0) this.options.metrics.stale.inc({ shard: this.options.shard }, stale);
    return this.write(passes);
  }

  /** Brings the projection of `executionId` up to its last committed event. */
  async project(executionId: string): Promise<Projected> {
    const base = (await this.bases([executionId])).get(executionId)!;
    const from = { ...base };
    let folded: Folded;
    try {
      folded = await this.fold(executionId, base, undefined);
    } catch (error) {
      this.states.delete(executionId);
      throw error;
    }
    const [projected] = await this.write([{ executionId, base: from, folded }]);
    return projected!;
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

  /**
   * Folds `delivered` onto `base` when they follow it without a gap, else
   * (or with nothing delivered) every ledger event after it. Mutates the
   * base's state: the caller drops it from the cache if the pass fails.
   */
  private async fold(executionId: string, base: FoldPoint, delivered: readonly LedgerEvent[] | undefined): Promise<Folded> {
    const { db, ledger, observe } = this.options;
    const follows = delivered !== undefined && delivered.every((event, i) => event.stream_version === base.version + i + 1);
    if (!follows) return foldLedger(db, ledger, executionId, base, observe ? { observe } : {});
    let state = base.state;
    for (const event of delivered) {
      // Delivered events are as they were written: lift them as the ledger's reads do.
      state = applyEvent(state, ledger.upcasters.upcast(event) as LedgerEvent);
      observe?.(event, state);
    }
    const last = delivered.at(-1);
    return { state, version: last?.stream_version ?? base.version, folded: delivered.length, ...(last ? { last } : {}) };
  }

  /** Writes every row a pass moved in one statement, keeps snapshots, and caches the states. */
  private async write(passes: readonly Pass[]): Promise<Projected[]> {
    const { db, ledger, projections, metrics, shard, snapshotEvery } = this.options;
    const moved = passes.filter((pass) => pass.folded.folded > 0 && pass.folded.state !== undefined);
    const rows: ProjectionRow<ExecutionState>[] = moved.map(({ executionId, folded }) => ({
      executionId,
      version: folded.version,
      state: folded.state!,
      checksum: stateChecksum(folded.state!),
    }));
    let written: Set<string>;
    try {
      written = await projections.upsertMany(db, ledger.scope, rows);
    } catch (error) {
      for (const pass of passes) this.states.delete(pass.executionId);
      throw error;
    }
    for (const row of rows) {
      const pass = moved.find((p) => p.executionId === row.executionId)!;
      if (!written.has(row.executionId)) metrics.stale.inc({ shard });
      else if (Math.floor(row.version / snapshotEvery) > Math.floor(pass.base.version / snapshotEvery)) {
        await projections.saveSnapshot(db, ledger.scope, { ...row, ...this.folding });
      }
    }
    let newest: LedgerEvent | undefined;
    for (const pass of passes) {
      if (pass.folded.state) this.remember(pass.executionId, { state: pass.folded.state, version: pass.folded.version });
      const last = pass.folded.last;
      if (last && (!newest || Date.parse(last.event_time) > Date.parse(newest.event_time))) newest = last;
    }
    const folded = passes.reduce((sum, pass) => sum + pass.folded.folded, 0);
    if (folded > 0) metrics.events.inc({ shard }, folded);
    if (newest) {
      metrics.lastEventId.set({ shard }, Number(newest.event_id));
      metrics.lagMs.set({ shard }, Math.max(0, Date.now() - Date.parse(newest.event_time)));
    }
    return passes.map(({ executionId, base, folded: f }) => ({
      executionId,
      from: base.version,
      version: f.version,
      folded: f.folded,
      written: written.has(executionId),
    }));
  }

  /** The state each execution was projected to: cached, else its row (one read for all), else nothing yet. */
  private async bases(executionIds: readonly string[]): Promise<Map<string, FoldPoint>> {
    const bases = new Map<string, FoldPoint>();
    const missing = executionIds.filter((id) => !this.states.has(id));
    const rows = missing.length ? await this.options.projections.getMany<ExecutionState>(this.options.db, this.options.ledger.scope, missing) : new Map();
    for (const id of executionIds) {
      const cached = this.states.get(id);
      const row = rows.get(id);
      bases.set(id, cached ?? (row ? { state: row.state, version: row.version } : { state: undefined, version: 0 }));
      // The fold mutates the state: it is back in the cache only once the row it leads to is written.
      this.states.delete(id);
    }
    return bases;
  }

  private remember(executionId: string, point: FoldPoint): void {
    this.states.delete(executionId);
    this.states.set(executionId, point);
    if (this.states.size > CACHED_STATES) {
      const oldest = this.states.keys().next().value;
      if (oldest !== undefined) this.states.delete(oldest);
    }
  }
}
