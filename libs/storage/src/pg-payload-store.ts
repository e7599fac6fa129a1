import type { PayloadRef } from '@noetl/event-kernel';
import type { Queryable } from './database';
import { PayloadNotFoundError, payloadRefOf, payloadSha, toBuffer, verifyPayload, type PayloadStore } from './payload-store';
import type { TenantScope } from './storage-error';

/**
 * Payloads in `noetl.payload`: the default store, one copy per (tenant,
 * organization, sha256). On the pool, or on one transaction's connection
 * (code that holds a lock must not wait for a second connection).
 */
export class PgPayloadStore implements PayloadStore {
  constructor(private readonly db: Queryable) {}

  async put(bytes: Uint8Array | string, mediaType: string, scope: TenantScope): Promise<PayloadRef> {
    const data = toBuffer(bytes);
    const ref = payloadRefOf(data, mediaType);
    await this.db.query(
      `INSERT INTO noetl.payload (tenant_id, organization_id, sha256, media_type, byte_length, data)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT DO NOTHING`,
      [scope.tenantId, scope.organizationId, ref.sha256, mediaType, ref.bytes, data],
    );
    return ref;
  }

  async get(ref: PayloadRef | string, scope: TenantScope): Promise<Buffer> {
    const sha = payloadSha(ref);
    const [row] = await this.db.query<{ data: Buffer }>(
      'SELECT data FROM noetl.payload WHERE tenant_id = $1 AND organization_id = $2 AND sha256 = $3',
      [scope.tenantId, scope.organizationId, sha],
    );
    if (!row) throw new PayloadNotFoundError(sha, scope);
    return verifyPayload(sha, row.data);
  }

  async exists(sha256: string, scope: TenantScope): Promise<boolean> {
    const rows = await this.db.query('SELECT 1 FROM noetl.payload WHERE tenant_id = $1 AND organization_id = $2 AND sha256 = $3', [
      scope.tenantId,
      scope.organizationId,
      payloadSha(sha256),
    ]);
    return rows.length > 0;
  }
}
