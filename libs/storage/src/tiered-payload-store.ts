import type { PayloadRef } from '@noetl/event-kernel';
import { PayloadNotFoundError, toBuffer, type PayloadStore } from './payload-store';
import type { TenantScope } from './storage-error';

/**
 * Two stores chosen by size (seed 002's tiering; the inline tier is the
 * event itself): bytes below `largeBytes` go to `small` (the database, often
 * the appending transaction's connection), larger ones to `large` (the
 * object store). A read tries the tier the ref's size names first and then
 * the other, so refs written under another threshold, or bare digests, are
 * still found.
 */
export class TieredPayloadStore implements PayloadStore {
  constructor(
    private readonly small: PayloadStore,
    private readonly large: PayloadStore,
    private readonly largeBytes: number,
  ) {}

  async put(bytes: Uint8Array | string, mediaType: string, scope: TenantScope): Promise<PayloadRef> {
    const data = toBuffer(bytes);
    return (data.byteLength >= this.largeBytes ? this.large : this.small).put(data, mediaType, scope);
  }

  async get(ref: PayloadRef | string, scope: TenantScope): Promise<Buffer> {
    const [first, second] = this.readOrder(ref);
    try {
      return await first.get(ref, scope);
    } catch (error) {
      if (!(error instanceof PayloadNotFoundError)) throw error;
      return second.get(ref, scope);
    }
  }

  async exists(sha256: string, scope: TenantScope): Promise<boolean> {
    return (await this.small.exists(sha256, scope)) || this.large.exists(sha256, scope);
  }

  private readOrder(ref: PayloadRef | string): [PayloadStore, PayloadStore] {
    const large = typeof ref !== 'string' && typeof ref?.bytes === 'number' && ref.bytes >= this.largeBytes;
    return large ? [this.large, this.small] : [this.small, this.large];
  }
}
