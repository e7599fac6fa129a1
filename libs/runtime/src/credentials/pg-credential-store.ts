import type { Secret } from '@noetl/config';
import type { JsonObject } from '@noetl/event-kernel';
import type { Queryable, TenantScope } from '@noetl/storage';
import { RuntimeError } from '../runtime-error';
import { CredentialCipher } from './credential-cipher';
import { assertCredentialName } from './credential-name';
import { assertBound, assertPathGlobs } from './credential-binding';
import type { CredentialInput, CredentialSettings, CredentialStore, CredentialSummary, CredentialUse, CredentialUseView } from './credential-types';

interface SummaryRow {
  name: string;
  type: string;
  allowed_paths: string[] | null;
  created_at: Date;
  updated_at: Date;
}

interface SealedRow {
  type: string;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  allowed_paths: string[] | null;
  require_binding: boolean;
}

const SUMMARY_COLUMNS = 'name, type, allowed_paths, created_at, updated_at';

const LOCKED_HINT = 'set NOETL_ENCRYPTION_KEY (32 bytes as 64 hex characters or base64)';

/**
 * Credentials in `noetl.credential`, encrypted at rest with AES-256-GCM
 * (DESIGN.md invariant 8). Without a cipher the store is locked: it lists,
 * shows and deletes, but cannot store or resolve.
 */
export class PgCredentialStore implements CredentialStore {
  constructor(
    private readonly db: Queryable,
    private readonly cipher: CredentialCipher | undefined,
    private readonly scope: TenantScope,
  ) {}

  /** Creates or replaces the credential (a fresh IV on every write). */
  async put(input: CredentialInput): Promise<CredentialSummary> {
    assertCredentialName(input.name);
    if (input.type.trim() === '') throw new RuntimeError('invalid_request', `credential "${input.name}" needs a non-empty type`);
    const allowedPaths = input.allowed_paths ?? null;
    if (allowedPaths) assertPathGlobs(input.name, allowedPaths);
    const sealed = this.unlocked('store').seal(input.data, this.associatedData(input.name, input.type));
    const [row] = await this.db.query<SummaryRow>(
      `INSERT INTO noetl.credential (tenant_id, organization_id, name, type, ciphertext, iv, auth_tag, allowed_paths)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (tenant_id, organization_id, name) DO UPDATE
         SET type = EXCLUDED.type, ciphertext = EXCLUDED.ciphertext, iv = EXCLUDED.iv,
             auth_tag = EXCLUDED.auth_tag, allowed_paths = EXCLUDED.allowed_paths, updated_at = now()
       RETURNING ${SUMMARY_COLUMNS}`,
      [this.scope.tenantId, this.scope.organizationId, input.name, input.type, sealed.ciphertext, sealed.iv, sealed.authTag, allowedPaths],
    );
    return toSummary(row!);
  }

  async list(): Promise<CredentialSummary[]> {
    const rows = await this.db.query<SummaryRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM noetl.credential
        WHERE tenant_id = $1 AND organization_id = $2 ORDER BY name`,
      [this.scope.tenantId, this.scope.organizationId],
    );
    return rows.map(toSummary);
  }

  async get(name: string): Promise<CredentialSummary> {
    const [row] = await this.db.query<SummaryRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM noetl.credential
        WHERE tenant_id = $1 AND organization_id = $2 AND name = $3`,
      [this.scope.tenantId, this.scope.organizationId, name],
    );
    if (!row) throw credentialNotFound(name);
    return toSummary(row);
  }

  async resolve(name: string, use: CredentialUse): Promise<{ type: string; data: JsonObject }> {
    const cipher = this.unlocked('resolve');
    const [row] = await this.db.query<SealedRow>(
      `SELECT c.type, c.ciphertext, c.iv, c.auth_tag, c.allowed_paths, COALESCE(s.credentials_require_binding, false) AS require_binding
         FROM noetl.credential c
         LEFT JOIN noetl.tenant_setting s ON s.tenant_id = c.tenant_id AND s.organization_id = c.organization_id
        WHERE c.tenant_id = $1 AND c.organization_id = $2 AND c.name = $3`,
      [this.scope.tenantId, this.scope.organizationId, name],
    );
    if (!row) throw credentialNotFound(name);
    assertBound(name, row, use.path);
    const data = cipher.open({ ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag }, this.associatedData(name, row.type), name);
    await this.db.query(
      `INSERT INTO noetl.credential_use (tenant_id, organization_id, name, execution_id, path, step, holder_kind, holder_id, worker_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [this.scope.tenantId, this.scope.organizationId, name, use.executionId, use.path, use.step, use.holder.kind, use.holder.id, use.workerId],
    );
    return { type: row.type, data };
  }

  async settings(): Promise<CredentialSettings> {
    const [row] = await this.db.query<{ require_binding: boolean }>(
      `SELECT credentials_require_binding AS require_binding FROM noetl.tenant_setting WHERE tenant_id = $1 AND organization_id = $2`,
      [this.scope.tenantId, this.scope.organizationId],
    );
    return { require_binding: row?.require_binding ?? false };
  }

  async updateSettings(settings: CredentialSettings): Promise<CredentialSettings> {
    await this.db.query(
      `INSERT INTO noetl.tenant_setting (tenant_id, organization_id, credentials_require_binding) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, organization_id) DO UPDATE SET credentials_require_binding = EXCLUDED.credentials_require_binding, updated_at = now()`,
      [this.scope.tenantId, this.scope.organizationId, settings.require_binding],
    );
    return this.settings();
  }

  async uses(name: string, limit: number): Promise<CredentialUseView[]> {
    const rows = await this.db.query<Omit<CredentialUseView, 'used_at'> & { used_at: Date }>(
      `SELECT name, execution_id::text, path, step, holder_kind, holder_id::text, worker_id, used_at FROM noetl.credential_use
        WHERE tenant_id = $1 AND organization_id = $2 AND name = $3 ORDER BY use_id DESC LIMIT $4`,
      [this.scope.tenantId, this.scope.organizationId, name, limit],
    );
    // None: a credential of no use yet, or none at all (not found, as for another tenant's).
    if (rows.length === 0) await this.get(name);
    return rows.map((row) => ({ ...row, used_at: row.used_at.toISOString() }));
  }

  async delete(name: string): Promise<void> {
    const rows = await this.db.query<{ name: string }>(
      `DELETE FROM noetl.credential WHERE tenant_id = $1 AND organization_id = $2 AND name = $3 RETURNING name`,
      [this.scope.tenantId, this.scope.organizationId, name],
    );
    if (rows.length === 0) throw credentialNotFound(name);
  }

  private unlocked(action: 'store' | 'resolve'): CredentialCipher {
    if (this.cipher) return this.cipher;
    throw new RuntimeError('credentials_locked', `credentials are locked: ${LOCKED_HINT} to ${action} credentials`);
  }

  private associatedData(name: string, type: string): string {
    return [this.scope.tenantId, this.scope.organizationId, name, type].join('\u0000');
  }
}

/**
 * The cipher a process opens credentials with: from NOETL_ENCRYPTION_KEY.
 * Refuses (`credentials_locked`) to start without a key when any tenant
 * already has credentials: they would be unreadable, and a silent locked
 * store would only fail later at a worker. Without a key and without
 * credentials, stores open locked (undefined). A process that never
 * decrypts (`decrypts: false`: a worker that asks the API for credentials)
 * opens them locked whatever is stored.
 */
export async function openCredentialCipher(
  db: Queryable,
  key: Secret | undefined,
  options: { decrypts?: boolean } = {},
): Promise<CredentialCipher | undefined> {
  if (key) return CredentialCipher.fromKey(key);
  if (options.decrypts === false) return undefined;
  const [row] = await db.query<{ stored: number; tenants: number }>(
    `SELECT count(*)::int AS stored, count(DISTINCT (tenant_id, organization_id))::int AS tenants FROM noetl.credential`,
  );
  const stored = row?.stored ?? 0;
  if (stored > 0) {
    throw new RuntimeError(
      'credentials_locked',
      `${stored} credential(s) are stored for ${row?.tenants ?? 0} tenant organization(s), ` +
        `but no encryption key is given: ${LOCKED_HINT} to the key they were stored with`,
    );
  }
  return undefined;
}

function credentialNotFound(name: string): RuntimeError {
  return new RuntimeError('not_found', `credential "${name}" not found`);
}

function toSummary(row: SummaryRow): CredentialSummary {
  return { name: row.name, type: row.type, allowed_paths: row.allowed_paths, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}
