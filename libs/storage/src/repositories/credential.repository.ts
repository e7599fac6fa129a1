import type { Queryable } from '../database';
import type { TenantScope } from '../storage-error';

/** A credential as listed: never its secret. */
export interface CredentialSummaryRow {
  name: string;
  type: string;
  allowed_paths: string[] | null;
  created_at: Date;
  updated_at: Date;
}

/** A credential's sealed secret, its binding, and whether its tenant requires bindings. */
export interface SealedCredentialRow {
  type: string;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  allowed_paths: string[] | null;
  require_binding: boolean;
}

/** A credential stored sealed (AES-256-GCM: its ciphertext, IV and tag). */
export interface SealedCredential {
  name: string;
  type: string;
  ciphertext: Buffer;
  iv: Buffer;
  authTag: Buffer;
  allowedPaths: string[] | null;
}

/** One resolution of a credential: who resolved it, for which execution and step. */
export interface CredentialUseRow {
  name: string;
  execution_id: string;
  path: string;
  step: string | null;
  holder_kind: 'command' | 'frame';
  holder_id: string;
  worker_id: string;
  used_at: Date;
}

const SUMMARY_COLUMNS = 'name, type, allowed_paths, created_at, updated_at';

/**
 * Every statement against `noetl.credential` and its audit trail
 * `noetl.credential_use` (STYLE.md "One table, one repository": the trail
 * is written only as a credential is resolved, and read only beside it).
 */
export class CredentialRepository {
  /** Creates or replaces the credential. */
  async upsert(q: Queryable, scope: TenantScope, credential: SealedCredential): Promise<CredentialSummaryRow> {
    const [row] = await q.query<CredentialSummaryRow>(
      `INSERT INTO noetl.credential (tenant_id, organization_id, name, type, ciphertext, iv, auth_tag, allowed_paths)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (tenant_id, organization_id, name) DO UPDATE
         SET type = EXCLUDED.type, ciphertext = EXCLUDED.ciphertext, iv = EXCLUDED.iv,
             auth_tag = EXCLUDED.auth_tag, allowed_paths = EXCLUDED.allowed_paths, updated_at = now()
       RETURNING ${SUMMARY_COLUMNS}`,
      [
        scope.tenantId,
        scope.organizationId,
        credential.name,
        credential.type,
        credential.ciphertext,
        credential.iv,
        credential.authTag,
        credential.allowedPaths,
      ],
    );
    return row!;
  }

  async list(q: Queryable, scope: TenantScope): Promise<CredentialSummaryRow[]> {
    return q.query<CredentialSummaryRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM noetl.credential WHERE tenant_id = $1 AND organization_id = $2 ORDER BY name`,
      [scope.tenantId, scope.organizationId],
    );
  }

  async summary(q: Queryable, scope: TenantScope, name: string): Promise<CredentialSummaryRow | undefined> {
    const [row] = await q.query<CredentialSummaryRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM noetl.credential WHERE tenant_id = $1 AND organization_id = $2 AND name = $3`,
      [scope.tenantId, scope.organizationId, name],
    );
    return row;
  }

  /** The sealed credential with whether its tenant requires bindings (`noetl.tenant_setting`, false when unset). */
  async sealed(q: Queryable, scope: TenantScope, name: string): Promise<SealedCredentialRow | undefined> {
    const [row] = await q.query<SealedCredentialRow>(
      `SELECT c.type, c.ciphertext, c.iv, c.auth_tag, c.allowed_paths, COALESCE(s.credentials_require_binding, false) AS require_binding
         FROM noetl.credential c
         LEFT JOIN noetl.tenant_setting s ON s.tenant_id = c.tenant_id AND s.organization_id = c.organization_id
        WHERE c.tenant_id = $1 AND c.organization_id = $2 AND c.name = $3`,
      [scope.tenantId, scope.organizationId, name],
    );
    return row;
  }

  /** Whether it was there to delete. */
  async delete(q: Queryable, scope: TenantScope, name: string): Promise<boolean> {
    const rows = await q.query(`DELETE FROM noetl.credential WHERE tenant_id = $1 AND organization_id = $2 AND name = $3 RETURNING name`, [
      scope.tenantId,
      scope.organizationId,
      name,
    ]);
    return rows.length > 0;
  }

  /** Credentials stored, of every tenant, and how many tenant organizations hold them. */
  async countAll(q: Queryable): Promise<{ stored: number; tenants: number }> {
    const [row] = await q.query<{ stored: number; tenants: number }>(
      `SELECT count(*)::int AS stored, count(DISTINCT (tenant_id, organization_id))::int AS tenants FROM noetl.credential`,
    );
    return { stored: row?.stored ?? 0, tenants: row?.tenants ?? 0 };
  }

  async recordUse(q: Queryable, scope: TenantScope, use: Omit<CredentialUseRow, 'used_at'>): Promise<void> {
    await q.query(
      `INSERT INTO noetl.credential_use (tenant_id, organization_id, name, execution_id, path, step, holder_kind, holder_id, worker_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [scope.tenantId, scope.organizationId, use.name, use.execution_id, use.path, use.step, use.holder_kind, use.holder_id, use.worker_id],
    );
  }

  /** The credential's latest uses, newest first. */
  async uses(q: Queryable, scope: TenantScope, name: string, limit: number): Promise<CredentialUseRow[]> {
    return q.query<CredentialUseRow>(
      `SELECT name, execution_id::text, path, step, holder_kind, holder_id::text, worker_id, used_at FROM noetl.credential_use
        WHERE tenant_id = $1 AND organization_id = $2 AND name = $3 ORDER BY use_id DESC LIMIT $4`,
      [scope.tenantId, scope.organizationId, name, limit],
    );
  }
}
