import type { Secret } from '@noetl/config';
import type { JsonObject } from '@noetl/event-kernel';
import type { Queryable, TenantScope } from '@noetl/storage';
import { RuntimeError } from '../runtime-error';
import { CredentialCipher } from './credential-cipher';
import { assertCredentialName } from './credential-name';
import type { CredentialInput, CredentialStore, CredentialSummary } from './credential-types';

interface SummaryRow {
  name: string;
  type: string;
  created_at: Date;
  updated_at: Date;
}

interface SealedRow {
  type: string;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
}

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
    const sealed = this.unlocked('store').seal(input.data, this.associatedData(input.name, input.type));
    const [row] = await this.db.query<SummaryRow>(
      `INSERT INTO noetl.credential (tenant_id, organization_id, name, type, ciphertext, iv, auth_tag)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant_id, organization_id, name) DO UPDATE
         SET type = EXCLUDED.type, ciphertext = EXCLUDED.ciphertext, iv = EXCLUDED.iv,
             auth_tag = EXCLUDED.auth_tag, updated_at = now()
       RETURNING name, type, created_at, updated_at`,
      [this.scope.tenantId, this.scope.organizationId, input.name, input.type, sealed.ciphertext, sealed.iv, sealed.authTag],
    );
    return toSummary(row!);
  }

  async list(): Promise<CredentialSummary[]> {
    const rows = await this.db.query<SummaryRow>(
      `SELECT name, type, created_at, updated_at FROM noetl.credential
        WHERE tenant_id = $1 AND organization_id = $2 ORDER BY name`,
      [this.scope.tenantId, this.scope.organizationId],
    );
    return rows.map(toSummary);
  }

  async get(name: string): Promise<CredentialSummary> {
    const [row] = await this.db.query<SummaryRow>(
      `SELECT name, type, created_at, updated_at FROM noetl.credential
        WHERE tenant_id = $1 AND organization_id = $2 AND name = $3`,
      [this.scope.tenantId, this.scope.organizationId, name],
    );
    if (!row) throw credentialNotFound(name);
    return toSummary(row);
  }

  async resolve(name: string): Promise<{ type: string; data: JsonObject }> {
    const cipher = this.unlocked('resolve');
    const [row] = await this.db.query<SealedRow>(
      `SELECT type, ciphertext, iv, auth_tag FROM noetl.credential
        WHERE tenant_id = $1 AND organization_id = $2 AND name = $3`,
      [this.scope.tenantId, this.scope.organizationId, name],
    );
    if (!row) throw credentialNotFound(name);
    const data = cipher.open({ ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag }, this.associatedData(name, row.type), name);
    return { type: row.type, data };
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
  return { name: row.name, type: row.type, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}
