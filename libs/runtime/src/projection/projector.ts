import {
  applyEvent,
  EventType,
  isIntact,
  REDUCER_VERSION,
  stateChecksum,
  type ExecutionState,
  type LedgerEvent,
} from '@noetl/event-kernel';
import { AdminActions } from '../admin/admin-types';
import type { Database, ProjectionRepository, ProjectionRow, Queryable } from '@noetl/storage';
import type { Logger } from 'pino';
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
  /** Where a refused (changed) event is said; a standalone rebuild has only the metric. */
  logger?: Logger;
}

/** What a projector role may be tuned with (EngineOptions.projectorTuning). */
export type ProjectorTuning = Partial<Pick<ProjectorOptions, 'observe' | 'snapshotEvery'>>;

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
 * A row (and a snapshot) is a copy of the whole state, so writing one costs
 * what the execution has done so far. While an execution has fewer events
 * than this, its row is written with every batch that moves it; past that,
 * when it ends, or once it has grown by a tenth since its last write (and a
 * second has passed), or every `DEFERRED_WRITE_MAX_MS` whatever happened: a
 * step then costs the same at its 5,000th as at its 50th. Reads are current
 * either way: the API folds what the row has not reached yet.
 */
const DEFER_WRITES_FROM_EVENTS = 1000;
const DEFERRED_WRITE_MIN_MS = 1000;
const DEFERRED_WRITE_MAX_MS = 10_000;
const DEFERRED_WRITE_GROWTH = 0.1;

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
  /** When each execution's row was last written by this projector, and the version it was written at. */
  private readonly writes = new Map<string, { at: number; version: number }>();
  /** Executions whose cached state is ahead of their row (a deferred write). */
  private readonly deferred = new Set<string>();

  constructor(
    private readonly options: ProjectorOptions,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The fold's identity: a snapshot made by another may not seed a replay. */
  get folding(): { reducerVersion: string; registryDigest: string } {
    return { reducerVersion: REDUCER_VERSION, registryDigest: this.options.ledger.upcasters.digest() };
  }

  /**
   * Projects a batch of delivered events (in stream order per execution, as
   * the ledger's tail and the stream deliver them). An execution with a
   * fresh event in `elided` (delivered without its payload) is folded from
   * the ledger. Reads and writes go through `q` (a feed's own connection),
   * else the pool.
   */
  async deliver(
    events: readonly LedgerEvent[],
    elided: ReadonlySet<string> = new Set(),
    q: Queryable = this.options.db,
  ): Promise<Projected[]> {
    const byExecution = new Map<string, LedgerEvent[]>();
    for (const event of events) {
      // A purge rewrote the execution's history (and dropped its row): what this projector holds of it is no longer its fold.
      if (isPurge(event)) {
        this.forget(event.execution_id);
        this.writes.delete(event.execution_id);
      }
      const list = byExecution.get(event.execution_id);
      if (list) list.push(event);
      else byExecution.set(event.execution_id, [event]);
    }
    const bases = await this.bases([...byExecution.keys()], q);
    const passes: Pass[] = [];
    let stale = 0;
    try {
      for (const [executionId, delivered] of byExecution) {
        const base = bases.get(executionId)!;
        const fresh = delivered.filter((event) => event.stream_version > base.version).sort((a, b) => a.stream_version - b.stream_version);
        stale += delivered.length - fresh.length;
        const whole = fresh.some((event) => elided.has(event.event_id));
        passes.push({ executionId, base: { ...base }, folded: await this.fold(q, executionId, base, whole ? undefined : fresh) });
      }
    } catch (error) {
      for (const executionId of byExecution.keys()) this.forget(executionId);
      throw error;
    }
    if (stale > 0) this.options.metrics.stale.inc({ shard: this.options.shard }, stale);
    return this.write(q, passes);
  }

  /** Brings the projection of `executionId` up to its last committed event. */
  async project(executionId: string): Promise<Projected> {
    const { db } = this.options;
    const base = (await this.bases([executionId], db)).get(executionId)!;
    const from = { ...base };
    let folded: Folded;
    try {
      folded = await this.fold(db, executionId, base, undefined);
    } catch (error) {
      this.forget(executionId);
      throw error;
    }
    const [projected] = await this.write(db, [{ executionId, base: from, folded }], { deferring: false });
    return projected!;
  }

  /** Drops projections (all when no ids are given) and folds them again from the ledger: the same events give the same rows. */
  async rebuild(executionIds?: readonly string[]): Promise<number> {
    const { db, ledger, projections } = this.options;
    const ids = executionIds ?? (await ledger.executionIds(db));
    await projections.delete(db, ledger.scope, executionIds);
    for (const id of ids) {
      this.forget(id);
      this.writes.delete(id);
    }
    for (const id of ids) await this.project(id);
    return ids.length;
  }

  /**
   * Folds `delivered` onto `base` when they follow it without a gap, else
   * (or with nothing delivered) every ledger event after it. Mutates the
   * base's state: the caller drops it from the cache if the pass fails.
   */
  private async fold(q: Queryable, executionId: string, base: FoldPoint, delivered: readonly LedgerEvent[] | undefined): Promise<Folded> {
    const { ledger, observe } = this.options;
    const follows = delivered !== undefined && delivered.every((event, i) => event.stream_version === base.version + i + 1);
    const refuseChanged = (event: LedgerEvent): void => this.refuse(event);
    if (!follows) return foldLedger(q, ledger, executionId, base, { refuseChanged, ...(observe ? { observe } : {}) });
    let { state, version } = base;
    let last: LedgerEvent | undefined;
    for (const event of delivered) {
      if (!isIntact(event)) {
        refuseChanged(event);
        break;
      }
      // Delivered events are as they were written: lift them as the ledger's reads do.
      state = applyEvent(state, ledger.upcasters.upcast(event) as LedgerEvent);
      observe?.(event, state);
      ({ stream_version: version } = event);
      last = event;
    }
    return { state, version, folded: version - base.version, ...(last ? { last } : {}) };
  }

  /**
   * An event changed behind the runtime (issue 25): the projection stops
   * before it, and stays there, rather than show a state no intact ledger
   * made; said at error level and in a metric, each time it is met.
   */
  private refuse(event: LedgerEvent): void {
    this.options.metrics.corrupt.inc({ shard: this.options.shard });
    this.options.logger?.error(
      { event_id: event.event_id, event_type: event.event_type, execution_id: event.execution_id, position: event.stream_version },
      'an event no longer matches its checksum (changed behind the runtime): its execution is not projected past it; `noetl verify` names it',
    );
  }

  /**
   * Writes the rows of the deferred executions whose time has come (see
   * DEFER_WRITES_FROM_EVENTS). The feeds call it on every round, whether
   * anything was delivered or not, and `stop` with `all`; through `q` as `deliver`.
   */
  async flush({ all = false } = {}, q: Queryable = this.options.db): Promise<void> {
    const due: Pass[] = [];
    for (const executionId of this.deferred) {
      const point = this.states.get(executionId);
      if (!point) continue; // a batch holds it now: that batch writes or defers it
      if (!all && !this.writeDue(executionId, point.state)) continue;
      const version = this.writes.get(executionId)?.version ?? 0;
      due.push({
        executionId,
        base: { state: undefined, version },
        folded: { state: point.state, version: point.version, folded: point.version - version },
      });
    }
    if (due.length > 0) await this.write(q, due, { deferring: false });
  }

  /**
   * Writes every row a pass moved in one statement (with `deferring`, only
   * those whose write is due; the others wait in the cache), keeps
   * snapshots, and caches the states.
   */
  private async write(q: Queryable, passes: readonly Pass[], { deferring = true } = {}): Promise<Projected[]> {
    const { ledger, projections, metrics, shard, snapshotEvery } = this.options;
    const moved = passes.filter((pass) => pass.folded.folded > 0 && pass.folded.state !== undefined);
    const now = deferring ? moved.filter((pass) => this.writeDue(pass.executionId, pass.folded.state)) : moved;
    const rows: ProjectionRow<ExecutionState>[] = now.map(({ executionId, folded }) => ({
      executionId,
      version: folded.version,
      state: folded.state!,
      checksum: stateChecksum(folded.state!),
    }));
    let written: Set<string>;
    try {
      written = await projections.upsertMany(q, ledger.scope, rows);
    } catch (error) {
      for (const pass of passes) this.forget(pass.executionId);
      throw error;
    }
    for (const row of rows) {
      const before = this.writes.get(row.executionId)?.version ?? now.find((p) => p.executionId === row.executionId)!.base.version;
      this.deferred.delete(row.executionId);
      if (!written.has(row.executionId)) {
        metrics.stale.inc({ shard });
        continue;
      }
      this.writes.set(row.executionId, { at: this.clock(), version: row.version });
      if (Math.floor(row.version / snapshotEvery) > Math.floor(before / snapshotEvery)) {
        await projections.saveSnapshot(q, ledger.scope, { ...row, ...this.folding });
      }
    }
    for (const pass of moved) if (!now.includes(pass)) this.deferred.add(pass.executionId);
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

  /** Whether a row moved to `state` is written now rather than deferred (see DEFER_WRITES_FROM_EVENTS). */
  private writeDue(executionId: string, state: ExecutionState | undefined): boolean {
    if (!state || state.status !== 'RUNNING' || state.eventCount < DEFER_WRITES_FROM_EVENTS) return true;
    const last = this.writes.get(executionId);
    if (!last) return true;
    const elapsed = this.clock() - last.at;
    const grown = state.eventCount - last.version >= last.version * DEFERRED_WRITE_GROWTH;
    return elapsed >= DEFERRED_WRITE_MAX_MS || (grown && elapsed >= DEFERRED_WRITE_MIN_MS);
  }

  private forget(executionId: string): void {
    this.states.delete(executionId);
    this.deferred.delete(executionId);
  }

  /** The state each execution was projected to: cached, else its row (one read for all), else nothing yet. */
  private async bases(executionIds: readonly string[], q: Queryable): Promise<Map<string, FoldPoint>> {
    const bases = new Map<string, FoldPoint>();
    const missing = executionIds.filter((id) => !this.states.has(id));
    const rows = missing.length ? await this.options.projections.getMany<ExecutionState>(q, this.options.ledger.scope, missing) : new Map();
    for (const id of executionIds) {
      const cached = this.states.get(id);
      const row = rows.get(id);
      bases.set(id, cached ?? (row ? { state: row.state, version: row.version } : { state: undefined, version: 0 }));
      // The fold mutates the state: it is back in the cache only once its batch is written (or its write deferred).
      this.states.delete(id);
    }
    return bases;
  }

  private remember(executionId: string, point: FoldPoint): void {
    this.states.delete(executionId);
    this.states.set(executionId, point);
    if (this.states.size > CACHED_STATES) {
      const oldest = this.states.keys().next().value;
      // A deferred fold dropped here is folded again from the ledger when its execution next moves.
      if (oldest !== undefined) {
        this.forget(oldest);
        this.writes.delete(oldest);
      }
    }
  }
}

function isPurge(event: LedgerEvent): boolean {
  return event.event_type === EventType.AdminAction && event.payload.action === AdminActions.purge;
}
