import { streamIdOf, type ExecutionStatus, type JsonObject, type PayloadRef, type EventError, type Json } from '@noetl/event-kernel';
import { enqueueWrite, type Queryable } from '../database';
import type { TenantScope } from '../storage-error';
import { prepared } from '../prepared-statements';
import { streamHeadColumn, takeStreamHead } from '../stream-locks';
import { isBigintId } from './bigint-id';

/** The row `execution.started` writes. */
export interface StartedExecutionRow {
  executionId: string;
  parentExecutionId: string | null;
  parentCommandId: string | null;
  /** The execution this one re-runs (its `execution.started` says so too). */
  rerunOf?: string;
  catalogId: string;
  path: string;
  version: number;
  workload: JsonObject;
  startedAt: string;
}

/** What the scheduler keeps on the row after a pass: its cursor and the state's outcome. */
export interface ExecutionCursor {
  executionId: string;
  plannedVersion: number;
  status: ExecutionStatus;
  result?: Json;
  resultRef?: PayloadRef;
  error?: EventError;
  completedAt?: string;
  lastEventId: string;
}

export interface ExecutionListRow {
  execution_id: string;
  parent_execution_id: string | null;
  path: string | null;
  version: number | null;
  status: ExecutionStatus;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface ExecutionListFilter extends ExecutionCountFilter {
  status?: string;
  /** Only executions older (smaller id) than this one. */
  before?: string;
  limit: number;
}

/** What narrows a list of executions and its counts per status. */
export interface ExecutionCountFilter {
  path?: string;
  parentId?: string;
  /** Started at or after / before these ISO times. */
  startedAfter?: string;
  startedBefore?: string;
}

/** Every statement against `noetl.execution` (STYLE.md "One table, one repository"). */
/**
 * The tenant scope of a lookup by execution id ($2 tenant, $3 organization),
 * as a filter on the primary-key row rather than an index condition: with
 * `tenant_id = $2 AND organization_id = $3` a table not analysed yet (a fresh
 * database, a burst of starts between autovacuum's analyses) planned the
 * lookup as a scan of the tenant's every execution by a tenant-led index
 * (idx_execution_tenant_path, since dropped; idx_execution_tenant_status),
 * ~1,600 rows per step with 1,000 executions running (bench:executions).
 * The columns are NOT NULL, so this is equality.
 */
const IN_SCOPE = '(tenant_id, organization_id) IS NOT DISTINCT FROM ($2, $3)';
const CURSOR_SQL = prepared(
  `SELECT planned_version, status, ${streamHeadColumn(4)} FROM noetl.execution WHERE execution_id = $1::bigint AND ${IN_SCOPE}`,
);
const SAVE_CURSOR_SQL = prepared(`
  UPDATE noetl.execution
     SET planned_version = $2, status = $3, result = $4::jsonb, result_ref = $5::jsonb, error = $6::jsonb,
         completed_at = $7, last_event_id = $8, updated_at = now()
   WHERE execution_id = $1::bigint`);

const INSERT_SQL = prepared(`
  INSERT INTO noetl.execution (execution_id, tenant_id, organization_id, parent_execution_id, parent_command_id, catalog_id, path, version, status, workload, started_at, rerun_of_execution_id)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'RUNNING', $9::jsonb, $10, $11) ON CONFLICT (execution_id) DO NOTHING`);

export class ExecutionRepository {
  /** Queued (enqueueWrite): it goes with the start's next statement, not in a round trip of its own. */
  async insert(q: Queryable, scope: TenantScope, row: StartedExecutionRow): Promise<void> {
    await enqueueWrite(q, INSERT_SQL, [
      row.executionId,
      scope.tenantId,
      scope.organizationId,
      row.parentExecutionId,
      row.parentCommandId,
      row.catalogId,
      row.path,
      row.version,
      JSON.stringify(row.workload),
      row.startedAt,
      row.rerunOf ?? null,
    ]);
  }

  /** The executions that re-run `executionId`, oldest first (by idx_execution_rerun_of). */
  async reruns(q: Queryable, scope: TenantScope, executionId: string): Promise<string[]> {
    const rows = await q.query<{ execution_id: string }>(
      `SELECT execution_id FROM noetl.execution WHERE rerun_of_execution_id = $1::bigint AND ${IN_SCOPE} ORDER BY execution_id`,
      [executionId, scope.tenantId, scope.organizationId],
    );
    return rows.map((row) => String(row.execution_id));
  }

  async exists(q: Queryable, scope: TenantScope, executionId: string): Promise<boolean> {
    if (!isBigintId(executionId)) return false;
    const rows = await q.query(`SELECT 1 FROM noetl.execution WHERE execution_id = $1::bigint AND ${IN_SCOPE}`, [
      executionId,
      scope.tenantId,
      scope.organizationId,
    ]);
    return rows.length > 0;
  }

  /**
   * The scheduler's cursor and the row's status; undefined when unknown to
   * this tenant. Read under the execution stream's lock, it notes the
   * stream's head too (the pass's first append then need not read it).
   */
  async cursor(
    q: Queryable,
    scope: TenantScope,
    executionId: string,
  ): Promise<{ planned_version: number; status: ExecutionStatus } | undefined> {
    const stream = streamIdOf({ type: 'execution', id: executionId });
    const [row] = await q.query<{ planned_version: number; status: ExecutionStatus; stream_head: number | null }>(CURSOR_SQL, [
      executionId,
      scope.tenantId,
      scope.organizationId,
      stream,
    ]);
    return row && takeStreamHead(q, stream, row);
  }

  async saveCursor(q: Queryable, cursor: ExecutionCursor): Promise<void> {
    await enqueueWrite(q, SAVE_CURSOR_SQL, [
      cursor.executionId,
      cursor.plannedVersion,
      cursor.status,
      cursor.result === undefined ? null : JSON.stringify(cursor.result),
      cursor.resultRef ? JSON.stringify(cursor.resultRef) : null,
      cursor.error ? JSON.stringify(cursor.error) : null,
      cursor.completedAt ?? null,
      cursor.lastEventId,
    ]);
  }

  /** Newest first; one more row than `limit` says whether another page follows. */
  async list(q: Queryable, scope: TenantScope, filter: ExecutionListFilter): Promise<ExecutionListRow[]> {
    const rows = await q.query<ExecutionListRow>(
      `SELECT execution_id, parent_execution_id, path, version, status, started_at, completed_at FROM noetl.execution
        WHERE tenant_id = $1 AND organization_id = $2 AND ${NARROWED_BY_FILTER}
          AND ($7::text IS NULL OR status = $7) AND ($8::bigint IS NULL OR execution_id < $8::bigint)
        ORDER BY execution_id DESC LIMIT $9`,
      [...filterParams(scope, filter), filter.status ?? null, filter.before ?? null, filter.limit + 1],
    );
    return rows.map((row) => ({
      ...row,
      execution_id: String(row.execution_id),
      parent_execution_id: row.parent_execution_id === null ? null : String(row.parent_execution_id),
    }));
  }

  /** How many executions the filter selects, per status (a status with none is left out). */
  async countByStatus(q: Queryable, scope: TenantScope, filter: ExecutionCountFilter): Promise<Record<string, number>> {
    const rows = await q.query<{ status: string; count: string }>(
      `SELECT status, count(*) AS count FROM noetl.execution WHERE tenant_id = $1 AND organization_id = $2 AND ${NARROWED_BY_FILTER} GROUP BY status`,
      filterParams(scope, filter),
    );
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
  }

  /**
   * The tenants and organizations with a running execution: what a sweep of
   * every tenant visits. A skip scan of idx_execution_running_scope, one
   * index probe per scope: a DISTINCT read every running execution, each sweep.
   */
  async runningScopes(q: Queryable): Promise<TenantScope[]> {
    const rows = await q.query<{ tenant_id: string; organization_id: string }>(
      `WITH RECURSIVE scopes AS (
         (SELECT tenant_id, organization_id FROM noetl.execution WHERE status = 'RUNNING' ORDER BY tenant_id, organization_id LIMIT 1)
         UNION ALL
         SELECT next.tenant_id, next.organization_id FROM scopes s CROSS JOIN LATERAL (
           SELECT tenant_id, organization_id FROM noetl.execution
            WHERE status = 'RUNNING' AND (tenant_id, organization_id) > (s.tenant_id, s.organization_id)
            ORDER BY tenant_id, organization_id LIMIT 1) next
       )
       SELECT tenant_id, organization_id FROM scopes`,
    );
    return rows.map((row) => ({ tenantId: row.tenant_id, organizationId: row.organization_id }));
  }

  /**
   * One page of the scope's running executions, in id order after `after`
   * (idx_execution_running_scope), and those of them with events after
   * their cursor: after a restart, or when a notification was lost. `next`
   * is where the following page starts, undefined once the page was the
   * last: a sweep reads at most `limit` executions however many run.
   */
  async unplanned(
    q: Queryable,
    scope: TenantScope,
    page: { after: string; limit: number },
  ): Promise<{ unplanned: string[]; next: string | undefined }> {
    const rows = await q.query<{ execution_id: string; unplanned: boolean }>(
      `SELECT e.execution_id,
              EXISTS (SELECT 1 FROM noetl.event ev
                       WHERE ev.stream_id = 'execution/' || e.execution_id AND ev.stream_version > e.planned_version) AS unplanned
         FROM (SELECT execution_id, planned_version FROM noetl.execution
                WHERE status = 'RUNNING' AND tenant_id = $1 AND organization_id = $2 AND execution_id > $3::bigint
                ORDER BY execution_id LIMIT $4) e
        ORDER BY e.execution_id`,
      [scope.tenantId, scope.organizationId, page.after, page.limit],
    );
    return {
      unplanned: rows.filter((row) => row.unplanned).map((row) => String(row.execution_id)),
      next: rows.length < page.limit ? undefined : String(rows[rows.length - 1]!.execution_id),
    };
  }

  /**
   * Children that ended while the parent command they report to is still
   * running. Read from the running commands (idx_command_lease) to their
   * children (idx_execution_parent_command), a set as large as the workers'
   * slots: read from the children, the tenant's every ended execution was
   * scanned each sweep. The child's scope is a filter (see IN_SCOPE), never
   * the way in.
   */
  async endedChildrenOfRunningCommands(q: Queryable, scope: TenantScope, limit: number): Promise<string[]> {
    const rows = await q.query<{ execution_id: string }>(
      `SELECT child.execution_id FROM noetl.command parent
         JOIN noetl.execution child ON child.parent_command_id = parent.command_id
        WHERE parent.status = 'RUNNING' AND parent.tenant_id = $1 AND parent.organization_id = $2
          AND child.status <> 'RUNNING' AND (child.tenant_id, child.organization_id) IS NOT DISTINCT FROM ($1, $2)
        LIMIT $3`,
      [scope.tenantId, scope.organizationId, limit],
    );
    return rows.map((row) => String(row.execution_id));
  }

  /**
   * Running children whose parent execution ended: read from the running
   * children (idx_execution_running_child), the child's scope a filter (see
   * IN_SCOPE); from the tenant's executions it read every one each sweep.
   */
  async runningChildrenOfEndedParents(q: Queryable, scope: TenantScope, limit: number): Promise<string[]> {
    const rows = await q.query<{ execution_id: string }>(
      `SELECT child.execution_id FROM noetl.execution child
         JOIN noetl.execution parent ON parent.execution_id = child.parent_execution_id
        WHERE child.status = 'RUNNING' AND child.parent_execution_id IS NOT NULL AND parent.status <> 'RUNNING'
          AND (child.tenant_id, child.organization_id) IS NOT DISTINCT FROM ($1, $2)
        LIMIT $3`,
      [scope.tenantId, scope.organizationId, limit],
    );
    return rows.map((row) => String(row.execution_id));
  }

  /** The `playbook` command a child reports to, with that command's spec; undefined for a child of none. */
  async parentCommandOf(q: Queryable, childId: string): Promise<{ commandId: string; spec: JsonObject | null } | undefined> {
    const [row] = await q.query<{ parent_command_id: string | null; spec: JsonObject | null }>(
      `SELECT child.parent_command_id, parent.spec FROM noetl.execution child
         LEFT JOIN noetl.command parent ON parent.command_id = child.parent_command_id
        WHERE child.execution_id = $1::bigint`,
      [childId],
    );
    return row?.parent_command_id ? { commandId: String(row.parent_command_id), spec: row.spec } : undefined;
  }

  /**
   * Retention: deletes the ended execution's events but its start, its end
   * and its admin.action audits, and every row derived from them, through
   * `noetl.purge_execution` (migration AppendOnlyLedger1795900000001), which
   * the database runs only beside a purge audit appended in `q`'s
   * transaction. Returns how many events went.
   */
  async purge(q: Queryable, executionId: string): Promise<number> {
    const [row] = await q.query<{ purged: number }>('SELECT noetl.purge_execution($1::bigint) AS purged', [executionId]);
    return row?.purged ?? 0;
  }

  /** How many executions lead down to `executionId`, itself included (a root counts 1); counted no further than `atMost`. */
  async chainLength(q: Queryable, executionId: string, atMost: number): Promise<number> {
    const [row] = await q.query<{ length: number }>(
      `WITH RECURSIVE up AS (
         SELECT parent_execution_id, 1 AS length FROM noetl.execution WHERE execution_id = $1::bigint
         UNION ALL
         SELECT e.parent_execution_id, up.length + 1 FROM noetl.execution e JOIN up ON e.execution_id = up.parent_execution_id
          WHERE up.length < $2
       ) SELECT coalesce(max(length), 0)::int AS length FROM up`,
      [executionId, atMost],
    );
    return row?.length ?? 0;
  }

  /** The child executions `executionId` has started (by idx_execution_parent). */
  async childCount(q: Queryable, executionId: string): Promise<number> {
    const [row] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM noetl.execution WHERE parent_execution_id = $1::bigint', [
      executionId,
    ]);
    return row?.n ?? 0;
  }

  async runningChildrenOfCommand(q: Queryable, commandId: string): Promise<string[]> {
    const rows = await q.query<{ execution_id: string }>(
      `SELECT execution_id FROM noetl.execution WHERE parent_command_id = $1::bigint AND status = 'RUNNING'`,
      [commandId],
    );
    return rows.map((row) => String(row.execution_id));
  }
}

/** The conditions of an ExecutionCountFilter on $3..$6 (filterParams), each off when its parameter is null. */
const NARROWED_BY_FILTER = `($3::text IS NULL OR path = $3) AND ($4::bigint IS NULL OR parent_execution_id = $4::bigint)
  AND ($5::timestamptz IS NULL OR started_at >= $5::timestamptz) AND ($6::timestamptz IS NULL OR started_at < $6::timestamptz)`;

function filterParams(scope: TenantScope, filter: ExecutionCountFilter): unknown[] {
  return [
    scope.tenantId,
    scope.organizationId,
    filter.path ?? null,
    filter.parentId ?? null,
    filter.startedAfter ?? null,
    filter.startedBefore ?? null,
  ];
}
