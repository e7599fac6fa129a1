import type { Queryable } from '../database';
import type { TenantScope } from '../storage-error';

/** Every statement against `noetl.tenant`: the tenants a deployment has run executions for. */
export class TenantRepository {
  /** Records the scope (once: a second call changes nothing). */
  async register(q: Queryable, scope: TenantScope): Promise<void> {
    await q.query('INSERT INTO noetl.tenant (tenant_id, organization_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [scope.tenantId, scope.organizationId]);
  }

  async list(q: Queryable): Promise<TenantScope[]> {
    const rows = await q.query<{ tenant_id: string; organization_id: string }>('SELECT tenant_id, organization_id FROM noetl.tenant ORDER BY tenant_id, organization_id');
    return rows.map((row) => ({ tenantId: row.tenant_id, organizationId: row.organization_id }));
  }
}
