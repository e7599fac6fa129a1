import type { Queryable } from '../database';
import type { TenantScope } from '../storage-error';

/** What each role may do is the API's to say (libs/roles/src/api/auth); the names live here, where the table checks them. */
export const API_KEY_ROLES = ['admin', 'operator', 'developer', 'viewer', 'worker'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

/** A key as it is listed: never its secret, nor the secret's digest. */
export interface ApiKeyRow {
  key_id: string;
  tenant_id: string;
  organization_id: string;
  role: ApiKeyRole;
  name: string;
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface NewApiKey {
  keyId: string;
  scope: TenantScope;
  role: ApiKeyRole;
  name: string;
  secretSha256: Buffer;
  createdBy: string | null;
}

const COLUMNS = 'key_id, tenant_id, organization_id, role, name, created_by, created_at, last_used_at, revoked_at';

/** Every statement against `noetl.api_key` (STYLE.md "One table, one repository"). */
export class ApiKeyRepository {
  async insert(q: Queryable, key: NewApiKey): Promise<ApiKeyRow> {
    const [row] = await q.query<ApiKeyRow>(
      `INSERT INTO noetl.api_key (key_id, tenant_id, organization_id, role, name, secret_sha256, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [key.keyId, key.scope.tenantId, key.scope.organizationId, key.role, key.name, key.secretSha256, key.createdBy],
    );
    if (!row) throw new Error('inserting an API key returned no row');
    return row;
  }

  /**
   * Stores a key under the id it was given unless that id is stored already;
   * the row as it now is, with its secret's digest, revoked or not (the caller
   * checks it is the key it meant).
   */
  async insertOrFind(q: Queryable, key: NewApiKey): Promise<ApiKeyRow & { secret_sha256: Buffer }> {
    await q.query(
      `INSERT INTO noetl.api_key (key_id, tenant_id, organization_id, role, name, secret_sha256, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (key_id) DO NOTHING`,
      [key.keyId, key.scope.tenantId, key.scope.organizationId, key.role, key.name, key.secretSha256, key.createdBy],
    );
    const [row] = await q.query<ApiKeyRow & { secret_sha256: Buffer }>(
      `SELECT ${COLUMNS}, secret_sha256 FROM noetl.api_key WHERE key_id = $1`,
      [key.keyId],
    );
    if (!row) throw new Error(`API key ${key.keyId} is neither inserted nor found`);
    return row;
  }

  /** A live (unrevoked) key with its secret's digest, to verify a presented secret against; undefined when unknown or revoked. */
  async live(q: Queryable, keyId: string): Promise<(ApiKeyRow & { secret_sha256: Buffer }) | undefined> {
    const [row] = await q.query<ApiKeyRow & { secret_sha256: Buffer }>(
      `SELECT ${COLUMNS}, secret_sha256 FROM noetl.api_key WHERE key_id = $1 AND revoked_at IS NULL`,
      [keyId],
    );
    return row;
  }

  /** The scope's keys (or every key, with no scope), oldest first, revoked ones included. */
  async list(q: Queryable, scope?: TenantScope): Promise<ApiKeyRow[]> {
    return q.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM noetl.api_key
        WHERE $1::text IS NULL OR (tenant_id = $1 AND organization_id = $2)
        ORDER BY created_at, key_id`,
      [scope?.tenantId ?? null, scope?.organizationId ?? null],
    );
  }

  /** Whether any key, revoked or not, was ever made: a deployment with none gets its first admin key at boot. */
  async any(q: Queryable): Promise<boolean> {
    return (await q.query('SELECT 1 FROM noetl.api_key LIMIT 1')).length > 0;
  }

  /** Revokes a live key of the scope (any scope's, with none); the key as it now is, undefined when there was none to revoke. */
  async revoke(q: Queryable, keyId: string, scope?: TenantScope): Promise<ApiKeyRow | undefined> {
    const [row] = await q.query<ApiKeyRow>(
      `UPDATE noetl.api_key SET revoked_at = now()
        WHERE key_id = $1 AND revoked_at IS NULL AND ($2::text IS NULL OR (tenant_id = $2 AND organization_id = $3))
       RETURNING ${COLUMNS}`,
      [keyId, scope?.tenantId ?? null, scope?.organizationId ?? null],
    );
    return row;
  }

  async touch(q: Queryable, keyId: string): Promise<void> {
    await q.query('UPDATE noetl.api_key SET last_used_at = now() WHERE key_id = $1', [keyId]);
  }
}
