import type { Queryable } from '../database';
import type { TenantScope } from '../storage-error';

export const WORKER_STATUSES = ['ACTIVE', 'DRAINING', 'STOPPED'] as const;
export type WorkerStatus = (typeof WORKER_STATUSES)[number];

/** What a worker says of itself on every report. */
export interface WorkerReport {
  worker_id: string;
  node: string;
  /** Absent: the default pool. */
  pool?: string;
  /** The tool kinds it runs; absent: every kind. */
  tools?: string[];
  slots: number;
  free_slots: number;
  status: WorkerStatus;
}

export interface WorkerRow extends WorkerReport {
  started_at: Date;
  heartbeat_at: Date;
  stopped_at: Date | null;
}

/** Every statement against `noetl.worker` (STYLE.md "One table, one repository"). */
export class WorkerRepository {
  /** Registers the worker (an id of its scope) on its first report; later reports refresh its capacity and heartbeat. */
  async report(q: Queryable, scope: TenantScope, report: WorkerReport): Promise<void> {
    await q.query(
      `INSERT INTO noetl.worker (worker_id, tenant_id, organization_id, node, pool, tools, slots, free_slots, status, stopped_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $9 = 'STOPPED' THEN now() END)
       ON CONFLICT (tenant_id, organization_id, worker_id) DO UPDATE
          SET node = EXCLUDED.node, pool = EXCLUDED.pool, tools = EXCLUDED.tools, slots = EXCLUDED.slots,
              free_slots = EXCLUDED.free_slots, status = EXCLUDED.status, heartbeat_at = now(), stopped_at = EXCLUDED.stopped_at`,
      [
        report.worker_id,
        scope.tenantId,
        scope.organizationId,
        report.node,
        report.pool ?? null,
        report.tools ?? null,
        report.slots,
        report.free_slots,
        report.status,
      ],
    );
  }

  /**
   * Deletes the scope's workers that stopped, or went silent, longer than
   * `retentionMs` ago: every run of `noetl run` and every restart leaves a
   * row. Returns how many went.
   */
  async prune(q: Queryable, scope: TenantScope, retentionMs: number): Promise<number> {
    const rows = await q.query(
      `DELETE FROM noetl.worker
        WHERE tenant_id = $1 AND organization_id = $2
          AND COALESCE(stopped_at, heartbeat_at) < now() - make_interval(secs => $3::double precision / 1000)
       RETURNING 1`,
      [scope.tenantId, scope.organizationId, retentionMs],
    );
    return rows.length;
  }

  /** The scope's workers, the most recently heard from first; stopped ones only if they stopped within `keepStoppedMs`. */
  async list(q: Queryable, scope: TenantScope, keepStoppedMs: number): Promise<WorkerRow[]> {
    const rows = await q.query<WorkerRow & { pool: string | null; tools: string[] | null }>(
      `SELECT worker_id, node, pool, tools, slots, free_slots, status, started_at, heartbeat_at, stopped_at FROM noetl.worker
        WHERE tenant_id = $1 AND organization_id = $2
          AND (status <> 'STOPPED' OR stopped_at > now() - make_interval(secs => $3::double precision / 1000))
        ORDER BY heartbeat_at DESC, worker_id`,
      [scope.tenantId, scope.organizationId, keepStoppedMs],
    );
    return rows.map(({ pool, tools, ...row }) => ({ ...row, ...(pool !== null ? { pool } : {}), ...(tools !== null ? { tools } : {}) }));
  }
}
