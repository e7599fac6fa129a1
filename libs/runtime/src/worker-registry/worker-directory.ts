import type { CommandRepository, Database, FrameRepository, PoolCount, TenantScope, WorkerRepository } from '@noetl/storage';

/** A worker as GET /api/workers shows it. */
export interface WorkerView {
  worker_id: string;
  node: string;
  pool: string | null;
  /** The tool kinds it runs; null: every kind. */
  tools: string[] | null;
  slots: number;
  free_slots: number;
  /** `stale`: it stopped reporting without saying it stopped (it died, or cannot reach the API). */
  status: (typeof WORKER_VIEW_STATUSES)[number];
  started_at: string;
  last_seen_at: string;
}

/** A worker pool as GET /api/workers shows it: its workers and the work that waits for them. */
export interface PoolView {
  /** null: the workers without NOETL_WORKER_POOL, and the work without a pool. */
  pool: string | null;
  /** Its active workers, and their slots. */
  workers: number;
  slots: number;
  free_slots: number;
  /** Work issued to it and not claimed: ISSUED commands, PENDING frames of open stages. */
  backlog: { commands: number; frames: number };
}

export interface WorkerDirectoryDeps {
  db: Database;
  workerRows: WorkerRepository;
  commandRows: CommandRepository;
  frameRows: FrameRepository;
  scope: TenantScope;
  /** A worker not heard from within this is `stale`. */
  freshMs: number;
  now?: () => number;
}

/**
 * Stopped workers stay listed this long, so an operator sees what went away;
 * then a stopping worker's report deletes them, and the rows of workers
 * silent as long (LocalControlPlane.reportWorker).
 */
export const KEEP_STOPPED_MS = 60 * 60_000;

export const WORKER_VIEW_STATUSES = ['active', 'draining', 'stale', 'stopped'] as const;

/** The registered workers of the tenant (seed 001 P4.2): who runs, with what capacity, and who went silent. */
export class WorkerDirectory {
  constructor(private readonly deps: WorkerDirectoryDeps) {}

  /** Every listed worker, or those of one status. */
  async list(status?: WorkerView['status']): Promise<WorkerView[]> {
    const now = (this.deps.now ?? Date.now)();
    const rows = await this.deps.workerRows.list(this.deps.db, this.deps.scope, KEEP_STOPPED_MS);
    const views = rows.map((row): WorkerView => ({
      worker_id: row.worker_id,
      node: row.node,
      pool: row.pool ?? null,
      tools: row.tools ?? null,
      slots: row.slots,
      free_slots: row.free_slots,
      status:
        row.status === 'STOPPED'
          ? 'stopped'
          : now - row.heartbeat_at.getTime() > this.deps.freshMs
            ? 'stale'
            : row.status === 'DRAINING'
              ? 'draining'
              : 'active',
      started_at: row.started_at.toISOString(),
      last_seen_at: row.heartbeat_at.toISOString(),
    }));
    return status === undefined ? views : views.filter((view) => view.status === status);
  }

  /**
   * Every pool that has active workers or waiting work, the pool without a
   * name first: what an operator (or an autoscaler) reads to see which pool
   * is short of workers. A pool with backlog and no worker waits for one.
   */
  async pools(): Promise<PoolView[]> {
    const { db, scope } = this.deps;
    const [workers, commands, frames] = await Promise.all([
      this.list('active'),
      this.deps.commandRows.backlogOf(db, scope),
      this.deps.frameRows.backlogOf(db, scope),
    ]);
    const pools = new Map<string | null, PoolView>();
    const poolOf = (pool: string | null): PoolView => {
      let view = pools.get(pool);
      if (!view) pools.set(pool, (view = { pool, workers: 0, slots: 0, free_slots: 0, backlog: { commands: 0, frames: 0 } }));
      return view;
    };
    for (const worker of workers) {
      const view = poolOf(worker.pool);
      view.workers += 1;
      view.slots += worker.slots;
      view.free_slots += worker.free_slots;
    }
    const count = (rows: PoolCount[], key: 'commands' | 'frames'): void => {
      for (const row of rows) poolOf(row.pool).backlog[key] += row.count;
    };
    count(commands, 'commands');
    count(frames, 'frames');
    return [...pools.values()].sort((a, b) =>
      a.pool === b.pool ? 0 : a.pool === null ? -1 : b.pool === null ? 1 : a.pool.localeCompare(b.pool),
    );
  }
}
