import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PayloadRef } from '@noetl/event-kernel';
import {
  InvalidPayloadRefError,
  PayloadNotFoundError,
  payloadRefOf,
  payloadSha,
  toBuffer,
  verifyPayload,
  type PayloadStore,
} from './payload-store';
import type { TenantScope } from './storage-error';

/**
 * Payloads as files: `<root>/<tenant>/<organization>/<sha[0:2]>/<sha>`.
 * Written to a temporary file, flushed, and renamed into place, so a reader
 * never sees a partial payload; verified against the address on every read.
 */
export class FsPayloadStore implements PayloadStore {
  constructor(private readonly root: string) {}

  async put(bytes: Uint8Array | string, mediaType: string, scope: TenantScope): Promise<PayloadRef> {
    const data = toBuffer(bytes);
    const ref = payloadRefOf(data, mediaType);
    const path = this.pathOf(ref.sha256, scope);
    if (await isFile(path)) return ref;
    const dir = join(path, '..');
    await mkdir(dir, { recursive: true });
    const temp = join(dir, `.${ref.sha256}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const file = await open(temp, 'wx', 0o644);
      try {
        await file.writeFile(data);
        await file.sync();
      } finally {
        await file.close();
      }
      // Same name, same bytes: a racing writer's rename is harmless.
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await syncDir(dir);
    return ref;
  }

  async get(ref: PayloadRef | string, scope: TenantScope): Promise<Buffer> {
    const sha = payloadSha(ref);
    let data: Buffer;
    try {
      data = await readFile(this.pathOf(sha, scope));
    } catch (error) {
      if (isNotFound(error)) throw new PayloadNotFoundError(sha, scope);
      throw error;
    }
    return verifyPayload(sha, data);
  }

  async exists(sha256: string, scope: TenantScope): Promise<boolean> {
    return isFile(this.pathOf(payloadSha(sha256), scope));
  }

  private pathOf(sha: string, scope: TenantScope): string {
    return join(this.root, segment(scope.tenantId), segment(scope.organizationId), sha.slice(0, 2), sha);
  }
}

/** A tenant or organization id as one safe path segment. */
function segment(id: string): string {
  const encoded = encodeURIComponent(id);
  if (encoded === '' || encoded === '.' || encoded === '..') {
    throw new InvalidPayloadRefError(`"${id}" cannot name a payload directory`);
  }
  return encoded;
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** Makes the rename durable; some filesystems cannot fsync a directory, which only weakens durability. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}
