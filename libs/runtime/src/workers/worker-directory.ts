import type { Database, TenantScope, WorkerRepository } from '@noetl/storage';

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

export interface WorkerDirectoryDeps {
  db: Database;
  workerRows: WorkerRepository;
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
}
