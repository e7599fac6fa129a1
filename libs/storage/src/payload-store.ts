import { canonicalJson, sha256Hex, type Json, type PayloadRef } from '@noetl/event-kernel';
import { StorageError, type TenantScope } from './storage-error';

export const PAYLOAD_STORE = Symbol('PayloadStore');

export const JSON_MEDIA_TYPE = 'application/json';

/**
 * Content-addressed bytes (DESIGN.md invariant 6), keyed by tenant,
 * organization and sha256. Putting the same bytes twice stores them once and
 * returns the same ref.
 */
export interface PayloadStore {
  put(bytes: Uint8Array | string, mediaType: string, scope: TenantScope): Promise<PayloadRef>;
  /** The bytes of a ref (or a bare sha256); throws PayloadNotFoundError when the scope has none. */
  get(ref: PayloadRef | string, scope: TenantScope): Promise<Buffer>;
  exists(sha256: string, scope: TenantScope): Promise<boolean>;
}

export class PayloadNotFoundError extends StorageError {
  readonly code = 'payload_not_found';

  constructor(
    readonly sha256: string,
    readonly scope: TenantScope,
  ) {
    super(`payload ${sha256} not found for tenant ${scope.tenantId}, organization ${scope.organizationId}`);
  }
}

/** Stored bytes whose sha256 no longer matches their address. */
export class PayloadCorruptError extends StorageError {
  readonly code = 'payload_corrupt';
}

export class InvalidPayloadRefError extends StorageError {
  readonly code = 'payload_ref_invalid';
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The validated sha256 of a ref or a bare digest. */
export function payloadSha(ref: PayloadRef | string): string {
  const sha = typeof ref === 'string' ? ref : ref?.sha256;
  if (typeof sha !== 'string' || !SHA256_HEX.test(sha)) {
    throw new InvalidPayloadRefError(`not a sha256 payload address: ${JSON.stringify(sha)}`);
  }
  return sha;
}

export function toBuffer(bytes: Uint8Array | string): Buffer {
  return typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function payloadRefOf(bytes: Buffer, mediaType: string): PayloadRef {
  return { sha256: sha256Hex(bytes), media_type: mediaType, bytes: bytes.byteLength };
}

/** Throws PayloadCorruptError unless `bytes` hash to `sha`. */
export function verifyPayload(sha: string, bytes: Buffer): Buffer {
  const actual = sha256Hex(bytes);
  if (actual !== sha) throw new PayloadCorruptError(`payload ${sha} hashes to ${actual}`);
  return bytes;
}

/** Stores a JSON value as canonical JSON, so equal values share one address. */
export function putJson(store: PayloadStore, value: Json, scope: TenantScope): Promise<PayloadRef> {
  return store.put(canonicalJson(value), JSON_MEDIA_TYPE, scope);
}

export async function getJson<T = Json>(store: PayloadStore, ref: PayloadRef | string, scope: TenantScope): Promise<T> {
  const bytes = await store.get(ref, scope);
  return JSON.parse(bytes.toString('utf8')) as T;
}
