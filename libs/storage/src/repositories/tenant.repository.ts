import type { Queryable } from '../database';
import type { TenantScope } from '../storage-error';

/** Every statement against `noetl.tenant` (the tenants a deployment has run executions for) and `noetl.tenant_setting` (their settings). */
export class TenantRepository {
  /** Records the scope (once: a second call changes nothing). */
  async register(q: Queryable, scope: TenantScope): Promise<void> {
    await q.query('INSERT INTO noetl.tenant (tenant_id, organization_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      scope.tenantId,
      scope.organizationId,
    ]);
  }

  async list(q: Queryable): Promise<TenantScope[]> {
    const rows = await q.query<{ tenant_id: string; organization_id: string }>(
      'SELECT tenant_id, organization_id FROM noetl.tenant ORDER BY tenant_id, organization_id',
    );
    return rows.map((row) => ({ tenantId: row.tenant_id, organizationId: row.organization_id }));
  }

  /** Whether every credential of the scope must name the paths that may use it (false when never set). */
  async credentialsRequireBinding(q: Queryable, scope: TenantScope): Promise<boolean> {
    const [row] = await q.query<{ require_binding: boolean }>(
      `SELECT credentials_require_binding AS require_binding FROM noetl.tenant_setting WHERE tenant_id = $1 AND organization_id = $2`,
      [scope.tenantId, scope.organizationId],
    );
    return row?.require_binding ?? false;
  }

  async setCredentialsRequireBinding(q: Queryable, scope: TenantScope, required: boolean): Promise<void> {
    await q.query(
      `INSERT INTO noetl.tenant_setting (tenant_id, organization_id, credentials_require_binding) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, organization_id) DO UPDATE SET credentials_require_binding = EXCLUDED.credentials_require_binding, updated_at = now()`,
      [scope.tenantId, scope.organizationId, required],
    );
  }
}
