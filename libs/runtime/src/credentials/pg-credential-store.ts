import type { Secret } from '@noetl/config';
import type { JsonObject } from '@noetl/event-kernel';
import { CredentialRepository, TenantRepository, type CredentialSummaryRow, type Queryable, type TenantScope } from '@noetl/storage';
import { RuntimeError } from '../runtime-error';
import { CredentialCipher } from './credential-cipher';
import { assertCredentialName } from './credential-name';
import { assertBound, assertPathGlobs } from './credential-binding';
import type {
  CredentialInput,
  CredentialSettings,
  CredentialStore,
  CredentialSummary,
  CredentialUse,
  CredentialUseView,
} from './credential-types';

const LOCKED_HINT = 'set NOETL_ENCRYPTION_KEY (32 bytes as 64 hex characters or base64)';

/**
 * Credentials in `noetl.credential`, encrypted at rest with AES-256-GCM
 * (DESIGN.md invariant 8). Without a cipher the store is locked: it lists,
 * shows and deletes, but cannot store or resolve.
 */
export class PgCredentialStore implements CredentialStore {
  private readonly rows = new CredentialRepository();
  private readonly tenants = new TenantRepository();

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
    const row = await this.rows.upsert(this.db, this.scope, {
      name: input.name,
      type: input.type,
      ciphertext: sealed.ciphertext,
      iv: sealed.iv,
      authTag: sealed.authTag,
      allowedPaths,
    });
    return toSummary(row);
  }

  async list(): Promise<CredentialSummary[]> {
    return (await this.rows.list(this.db, this.scope)).map(toSummary);
  }

  async get(name: string): Promise<CredentialSummary> {
    const row = await this.rows.summary(this.db, this.scope, name);
    if (!row) throw credentialNotFound(name);
    return toSummary(row);
  }

  async resolve(name: string, use: CredentialUse): Promise<{ type: string; data: JsonObject }> {
    const cipher = this.unlocked('resolve');
    const row = await this.rows.sealed(this.db, this.scope, name);
    if (!row) throw credentialNotFound(name);
    assertBound(name, row, use.path);
    const data = cipher.open({ ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag }, this.associatedData(name, row.type), name);
    await this.rows.recordUse(this.db, this.scope, {
      name,
      execution_id: use.executionId,
      path: use.path,
      step: use.step,
      holder_kind: use.holder.kind,
      holder_id: use.holder.id,
      worker_id: use.workerId,
    });
    return { type: row.type, data };
  }

  async settings(): Promise<CredentialSettings> {
    return { require_binding: await this.tenants.credentialsRequireBinding(this.db, this.scope) };
  }

  async updateSettings(settings: CredentialSettings): Promise<CredentialSettings> {
    await this.tenants.setCredentialsRequireBinding(this.db, this.scope, settings.require_binding);
    return this.settings();
  }

  async uses(name: string, limit: number): Promise<CredentialUseView[]> {
    const rows = await this.rows.uses(this.db, this.scope, name, limit);
    // None: a credential of no use yet, or none at all (not found, as for another tenant's).
    if (rows.length === 0) await this.get(name);
    return rows.map((row) => ({ ...row, used_at: row.used_at.toISOString() }));
  }

  async delete(name: string): Promise<void> {
    if (!(await this.rows.delete(this.db, this.scope, name))) throw credentialNotFound(name);
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
  const { stored, tenants } = await new CredentialRepository().countAll(db);
  if (stored > 0) {
    throw new RuntimeError(
      'credentials_locked',
      `${stored} credential(s) are stored for ${tenants} tenant organization(s), ` +
        `but no encryption key is given: ${LOCKED_HINT} to the key they were stored with`,
    );
  }
  return undefined;
}

function credentialNotFound(name: string): RuntimeError {
  return new RuntimeError('not_found', `credential "${name}" not found`);
}

function toSummary(row: CredentialSummaryRow): CredentialSummary {
  return {
    name: row.name,
    type: row.type,
    allowed_paths: row.allowed_paths,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
