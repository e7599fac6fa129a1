import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { RuntimeError } from '../runtime-error';

/** Who holds a lease: a worker id (public: it is in the events) and the token only its claim returned. */
export interface Holder {
  worker_id: string;
  lease_token: string;
}

/** A fresh token for a claim; the row keeps only its hash. */
export function newLeaseToken(): { token: string; hash: string } {
  const token = randomBytes(24).toString('base64url');
  return { token, hash: leaseTokenHash(token) };
}

/** Whether `holder` is the one the row's lease was given to. */
export function holdsLease(
  row: { worker_id: string | null; lease_token: string | null },
  holder: { worker_id: string; lease_token?: string },
): boolean {
  if (row.worker_id !== holder.worker_id || row.lease_token === null || typeof holder.lease_token !== 'string') return false;
  const presented = Buffer.from(leaseTokenHash(holder.lease_token), 'hex');
  const kept = Buffer.from(row.lease_token, 'hex');
  return presented.length === kept.length && timingSafeEqual(presented, kept);
}

/** A credential the work does not name (issue 15): refused, whoever asks. */
export function assertNamesCredential(refs: { names: string[]; templated: boolean } | null, name: string, what: string): void {
  if (refs === null || refs.templated || refs.names.includes(name)) return;
  throw new RuntimeError('credential_not_allowed', `${what} does not name credential "${name}"`);
}

/** What a row keeps of a lease token. */
export function leaseTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
