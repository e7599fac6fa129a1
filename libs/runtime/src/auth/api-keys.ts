import {
  API_KEY_ROLES,
  SCOPE_ID,
  type ApiKeyRepository,
  type ApiKeyRole,
  type ApiKeyRow,
  type Database,
  type NewApiKey,
  type Queryable,
  type TenantScope,
} from '@noetl/storage';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { RuntimeError, notFound } from '../runtime-error';
import type { Principal } from './principal';

/** `noetl_<key id: 16 hex>_<secret: 32 random bytes, base64url>`: the id finds the row, the secret proves the caller. */
const KEY_FORMAT = /^noetl_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
/** A verified key is trusted this long before it is looked up again: the most a revocation takes to reach every process. */
const VERIFIED_FOR_MS = 5_000;
/** `last_used_at` is written at most this often per key (a write per request would tax the hot path). */
const TOUCH_EVERY_MS = 60_000;
const NAME = /^[\w .@:/-]{1,100}$/;

/** A key as the API lists it: never its secret. */
export interface ApiKeyView {
  key_id: string;
  tenant_id: string;
  organization_id: string;
  role: ApiKeyRole;
  name: string;
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** What `provision` found: the key stored now or before (`present`), or stored and revoked since (`revoked`, refused by every server). */
export interface ProvisionedKey extends ApiKeyView {
  outcome: 'present' | 'revoked';
}

/** A new key: `key` is shown this once and kept nowhere. */
export interface CreatedApiKey extends ApiKeyView {
  key: string;
}

export interface NewKeyRequest {
  scope: TenantScope;
  role: ApiKeyRole;
  name: string;
  /** Who made it, for the audit (a principal's subject). */
  createdBy?: string;
}

/**
 * API keys (issue 11): random, shown once, stored as the sha256 of their
 * secret, each bound to a tenant, an organization and a role. `verify` is on
 * every request's path: a key it verified is trusted from memory for a few
 * seconds, and its use is recorded at most once a minute.
 */
export class ApiKeys {
  private readonly verified = new Map<string, { principal: Principal; digest: Buffer; until: number }>();
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly rows: ApiKeyRepository,
    private readonly now: () => number = Date.now,
  ) {}

  /** Makes a key (in `q`'s transaction when given). */
  async create(request: NewKeyRequest, q: Queryable = this.db): Promise<CreatedApiKey> {
    this.check(request);
    const key = generateApiKey();
    const { keyId, secret } = partsOf(key)!;
    const row = await this.rows.insert(q, newRow(request, keyId, secret));
    return { ...viewOf(row), key };
  }

  /**
   * A key an operator chose (NOETL_BOOTSTRAP_ADMIN_KEY, `noetl keys
   * bootstrap`): stored as its secret's digest under its own id, once
   * however often it is provisioned, so a deployment's keys can come from
   * its secret store and nothing has to be written to a home directory. An
   * id already stored for another secret, role or scope is refused; a
   * revoked key stays revoked.
   */
  async provision(request: NewKeyRequest & { key: string }): Promise<ProvisionedKey> {
    this.check(request);
    const parts = partsOf(request.key);
    if (!parts)
      throw new RuntimeError(
        'invalid_request',
        `the ${request.role} key to provision must read noetl_<16 hex>_<43 base64url>; \`noetl keys generate\` makes one`,
      );
    const candidate = newRow(request, parts.keyId, parts.secret);
    const row = await this.rows.insertOrFind(this.db, candidate);
    const same =
      timingSafeEqual(row.secret_sha256, candidate.secretSha256) &&
      row.role === request.role &&
      row.tenant_id === request.scope.tenantId &&
      row.organization_id === request.scope.organizationId;
    if (!same)
      throw new RuntimeError(
        'invalid_request',
        `API key ${parts.keyId} is already stored with another secret, role or scope; revoke it or provision another key`,
      );
    return { ...viewOf(row), outcome: row.revoked_at ? 'revoked' : 'present' };
  }

  private check(request: NewKeyRequest): void {
    if (!(API_KEY_ROLES as readonly string[]).includes(request.role)) {
      throw new RuntimeError('invalid_request', `role must be one of ${API_KEY_ROLES.join(', ')}`);
    }
    if (!NAME.test(request.name)) throw new RuntimeError('invalid_request', 'name must be 1-100 letters, digits, spaces or . _ @ : / -');
    for (const [what, id] of [
      ['tenant', request.scope.tenantId],
      ['organization', request.scope.organizationId],
    ] as const) {
      if (!SCOPE_ID.test(id)) throw new RuntimeError('invalid_request', `the ${what} id must be 1-64 letters, digits, _ or -`);
    }
  }

  /** The keys of a scope (every scope's, with none), revoked ones included. */
  async list(scope?: TenantScope): Promise<ApiKeyView[]> {
    return (await this.rows.list(this.db, scope)).map(viewOf);
  }

  /** Revokes a live key of the scope (any scope's, with none); `not_found` when there is none. */
  async revoke(keyId: string, scope?: TenantScope): Promise<ApiKeyView> {
    const row = /^[0-9a-f]{16}$/.test(keyId) ? await this.rows.revoke(this.db, keyId, scope) : undefined;
    if (!row) throw notFound('live API key', keyId);
    this.verified.delete(keyId);
    return viewOf(row);
  }

  /**
   * A deployment's first key: when no key was ever made, an admin key of
   * `scope`, made by one process however many start at once (a
   * transaction-scoped advisory lock), and handed to `keep` before it
   * commits (so whoever finds the key in the database can also find it
   * where `keep` put it). Undefined when keys exist.
   */
  async bootstrap(scope: TenantScope, keep: (created: CreatedApiKey) => void): Promise<CreatedApiKey | undefined> {
    return this.db.transaction(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 5))', ['noetl-bootstrap-admin-key']);
      if (await this.rows.any(q)) return undefined;
      const created = await this.create({ scope, role: 'admin', name: 'bootstrap admin', createdBy: 'bootstrap' }, q);
      keep(created);
      return created;
    });
  }

  /** The principal a presented key stands for; undefined when it is not a live key. */
  async verify(presented: string): Promise<Principal | undefined> {
    const parts = partsOf(presented);
    if (!parts) return undefined;
    const { keyId } = parts;
    const digest = digestOf(parts.secret);
    const now = this.now();
    const cached = this.verified.get(keyId);
    if (cached && cached.until > now) return timingSafeEqual(cached.digest, digest) ? cached.principal : undefined;
    const row = await this.rows.live(this.db, keyId);
    if (!row || !timingSafeEqual(row.secret_sha256, digest)) {
      this.verified.delete(keyId);
      return undefined;
    }
    const principal: Principal = {
      scope: { tenantId: row.tenant_id, organizationId: row.organization_id },
      role: row.role,
      subject: `key:${keyId}`,
    };
    this.verified.set(keyId, { principal, digest, until: now + VERIFIED_FOR_MS });
    if ((this.touched.get(keyId) ?? 0) + TOUCH_EVERY_MS <= now) {
      this.touched.set(keyId, now);
      await this.rows.touch(this.db, keyId);
    }
    return principal;
  }
}

/** The key id of a presented key, for a log line that must not carry the secret; undefined when it is not one. */
export function keyIdOf(presented: string): string | undefined {
  return partsOf(presented)?.keyId;
}

function digestOf(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

function viewOf(row: ApiKeyRow): ApiKeyView {
  return {
    key_id: row.key_id,
    tenant_id: row.tenant_id,
    organization_id: row.organization_id,
    role: row.role,
    name: row.name,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

/** A fresh key in the form every server accepts, made here and stored nowhere (`noetl keys generate`, `create`). */
export function generateApiKey(): string {
  return `noetl_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
}

function partsOf(key: string): { keyId: string; secret: string } | undefined {
  const match = KEY_FORMAT.exec(key);
  return match ? { keyId: match[1]!, secret: match[2]! } : undefined;
}

function newRow(request: NewKeyRequest, keyId: string, secret: string): NewApiKey {
  return {
    keyId,
    scope: request.scope,
    role: request.role,
    name: request.name,
    secretSha256: digestOf(secret),
    createdBy: request.createdBy ?? null,
  };
}
