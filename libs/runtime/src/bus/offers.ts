import { workPool, workToolKinds } from '@noetl/dsl';
import type { JsonObject } from '@noetl/event-kernel';
import type { Database, TenantScope, WorkerRepository, WorkerRow } from '@noetl/storage';
import { executionContext, stepRunContext, traceparentOf } from '../tracing/tracing';
import { scopeFields, Subjects, type Bus, type Notifications } from './bus';

/** A command or a stage's frame slot that waits for a worker. */
export interface WorkOffer {
  executionId: string;
  /** The tool kinds the work needs (`workToolKinds`); a worker must run every one. */
  kinds: readonly string[];
  /** The worker pool it was issued to (`workPool`); null or absent: work without a pool. */
  pool?: string | null;
  /** The step run the work is for: with traces on, the offer carries its W3C trace context (else the execution's), and the worker's span is its child. */
  runId?: string | null;
}

/** What an offer says of a command besides its id: the kinds it needs, its pool, and whether it must run alone on its worker. */
export function workOf(spec: JsonObject): { kinds: string[]; pool: string | null; alone?: true } {
  return { kinds: workToolKinds(spec), pool: workPool(spec), ...(spec['run_alone'] === true ? { alone: true as const } : {}) };
}

/** What a worker must be to take a piece of work: of its pool (both without one counts), running every kind it needs. */
export interface WorkNeeds {
  kinds: readonly string[];
  pool?: string | null;
}

/** Whether the worker may take the work (`Offers` targets by it; claims refuse what it refuses). */
export function takes(worker: { tools?: readonly string[]; pool?: string | null }, work: WorkNeeds): boolean {
  return samePool(worker.pool, work.pool) && runsAll(worker, work.kinds);
}

/** Pools match when both name the same one, or neither names one (a worker without a pool serves only work without one). */
export function samePool(workerPool: string | null | undefined, workPool: string | null | undefined): boolean {
  return (workerPool ?? null) === (workPool ?? null);
}

export interface OffersDeps {
  db: Database;
  bus: Bus;
  workerRows: WorkerRepository;
  scope: TenantScope;
  /** Workers heard from within this are candidates for a targeted offer. */
  freshMs: number;
  /** How long the registry read is reused: offers are hints, a slightly stale view only misroutes one to the broadcast. */
  refreshMs?: number;
  now?: () => number;
}

/**
 * Where a piece of work of one tenant is offered (seed 001 P4.2-P4.3): to a registered,
 * live worker of its pool with a free slot that runs every tool kind it needs, on that
 * worker's own subject; else on its pool's broadcast subject, which the pool's
 * unrestricted workers share as a queue group. Offers are notifications (DESIGN.md
 * invariant 5): a worker that vanished after its offer loses nothing, the
 * sweep offers the work again; a worker that may not run the work refuses it
 * at claim. Free slots are counted down here between registry reads, so a
 * burst of offers spreads over the workers.
 */
export class Offers {
  private workers: WorkerRow[] = [];
  private readAt = Number.NEGATIVE_INFINITY;
  private reading?: Promise<void>;

  constructor(private readonly deps: OffersDeps) {}

  /** `alone`: the worker must run it with nothing beside it (see `Worker.offer`). */
  async command(offer: WorkOffer & { commandId: string; alone?: boolean }): Promise<void> {
    const { tenantId } = this.deps.scope;
    const target = await this.pick(offer, (workerId) => Subjects.workFor(tenantId, workerId));
    const message: Notifications['work'] = {
      command_id: offer.commandId,
      execution_id: offer.executionId,
      ...scopeFields(this.deps.scope),
      ...(offer.alone ? { alone: true } : {}),
      ...traceFields(offer),
    };
    this.deps.bus.publish(target ? Subjects.workFor(tenantId, target) : Subjects.work(tenantId, offer.pool), message);
  }

  async stage(offer: WorkOffer & { stageId: string; slots: number }): Promise<void> {
    const { tenantId } = this.deps.scope;
    const message = { stage_id: offer.stageId, execution_id: offer.executionId, ...scopeFields(this.deps.scope), ...traceFields(offer) };
    for (let slot = 0; slot < offer.slots; slot++) {
      const target = await this.pick(offer, (workerId) => Subjects.framesFor(tenantId, workerId));
      this.deps.bus.publish(target ? Subjects.framesFor(tenantId, target) : Subjects.frames(tenantId, offer.pool), message);
    }
  }

  /**
   * The worker with the most free slots that takes `work` (its pool, its kinds) and that the bus
   * reaches on its `subject`; undefined when none is known (the pool's broadcast then).
   */
  private async pick(work: WorkNeeds, subject: (workerId: string) => string): Promise<string | undefined> {
    await this.refresh();
    let best: WorkerRow | undefined;
    for (const worker of this.workers) {
      if (worker.free_slots <= 0 || !takes(worker, work)) continue;
      if (this.deps.bus.reaches && !this.deps.bus.reaches(subject(worker.worker_id))) continue;
      if (!best || worker.free_slots > best.free_slots) best = worker;
    }
    if (!best) return undefined;
    best.free_slots -= 1;
    return best.worker_id;
  }

  private async refresh(): Promise<void> {
    const now = (this.deps.now ?? Date.now)();
    if (now - this.readAt < (this.deps.refreshMs ?? 1000)) return;
    this.reading ??= this.deps.workerRows
      .list(this.deps.db, this.deps.scope, 0)
      .then((rows) => {
        this.workers = rows.filter((row) => row.status === 'ACTIVE' && now - row.heartbeat_at.getTime() <= this.deps.freshMs);
        this.readAt = now;
      })
      // The registry is an accelerator: unreadable, every offer goes to the broadcast until the next read.
      .catch(() => {
        this.workers = [];
        this.readAt = now;
      })
      .finally(() => (this.reading = undefined));
    await this.reading;
  }
}

/** `{traceparent}` of the offer's step run, else of its execution; nothing when traces are off. */
function traceFields(offer: WorkOffer): { traceparent?: string } {
  const traceparent = traceparentOf(offer.runId ? stepRunContext(offer.executionId, offer.runId) : executionContext(offer.executionId));
  return traceparent ? { traceparent } : {};
}

/** Whether the worker runs every kind (an unrestricted worker runs all). */
export function runsAll(worker: { tools?: readonly string[] }, kinds: readonly string[]): boolean {
  return !worker.tools || kinds.every((kind) => worker.tools!.includes(kind));
}
