import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { PayloadRef } from '@noetl/event-kernel';
import {
  InvalidPayloadRefError,
  PayloadNotFoundError,
  payloadRefOf,
  SHA256_HEX,
  payloadSha,
  toBuffer,
  verifyPayload,
  type PayloadStore,
} from './payload-store';
import { SCOPE_ID, StorageError, type TenantScope } from './storage-error';

/** The smallest part S3 accepts: a body larger than one part is uploaded in parts, four at a time. */
export const S3_PART_BYTES = 5 * 1024 * 1024;

/** The retry backoff: 250 ms doubling to at most 5 s, so ten attempts ride out about half a minute of outage. */
const backoffMs = (attempt: number): number => Math.min(250 * 2 ** attempt, 5000);

export interface S3PayloadStoreSettings {
  endpoint?: string;
  bucket: string;
  region: string;
  prefix: string;
  forcePathStyle: boolean;
  maxAttempts: number;
  /** Retention's grace period: a put rewrites an object older than half of it (see put). */
  gcGraceMs: number;
}

/** One stored object, as retention lists them. */
export interface StoredObject {
  sha256: string;
  lastModified: Date;
}

/** The object store failed a request past its retries, or answered nonsense. */
export class ObjectStoreError extends StorageError {
  readonly code = 'payload_store_unavailable';
}

/** The SDK, loaded by `connect` only: a process without an object tier never pays for it (about 0.5 s and 60 MB). */
interface S3Sdk {
  client: typeof import('@aws-sdk/client-s3');
  storage: typeof import('@aws-sdk/lib-storage');
}

/**
 * Payloads in an S3-compatible bucket (AWS S3, MinIO, SeaweedFS, GCS's
 * interoperability endpoint) under `<prefix>/<tenant>/<organization>/<sha256>`.
 * A put asks HEAD first, so the same bytes are uploaded once; a read checks the
 * bytes against their address. The SDK retries 5xx, throttling and connection
 * errors with the backoff above. Objects are written outside any database
 * transaction: one a rolled-back transaction leaves behind is unreferenced, and
 * retention deletes it (collectUnreferencedObjects).
 */
export class S3PayloadStore implements PayloadStore {
  private constructor(
    private readonly sdk: S3Sdk,
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
    private readonly refreshAfterMs: number,
  ) {}

  static async connect(settings: S3PayloadStoreSettings): Promise<S3PayloadStore> {
    const sdk: S3Sdk = { client: await import('@aws-sdk/client-s3'), storage: await import('@aws-sdk/lib-storage') };
    const { ConfiguredRetryStrategy } = await import('@smithy/core/retry');
    const config: S3ClientConfig = {
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      retryStrategy: new ConfiguredRetryStrategy(settings.maxAttempts, backoffMs),
      // Checksums only where S3 demands them: MinIO, GCS and older servers refuse the aws-chunked trailers the SDK adds by default.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    };
    return new S3PayloadStore(sdk, new sdk.client.S3Client(config), settings.bucket, settings.prefix, settings.gcGraceMs / 2);
  }

  async put(bytes: Uint8Array | string, mediaType: string, scope: TenantScope): Promise<PayloadRef> {
    const data = toBuffer(bytes);
    const ref = payloadRefOf(data, mediaType);
    const key = this.keyOf(ref.sha256, scope);
    // An object is reused as it is while young. One older than half the grace
    // period is written again, so its age restarts: retention, which deletes
    // only unreferenced objects older than the grace period and checks the age
    // again just before it deletes, leaves alone one a new event is about to name.
    const modified = await this.head(key);
    if (modified && Date.now() - modified.getTime() < this.refreshAfterMs) return ref;
    await this.request('put', key, () =>
      new this.sdk.storage.Upload({
        client: this.client,
        params: { Bucket: this.bucket, Key: key, Body: data, ContentType: mediaType },
        partSize: S3_PART_BYTES,
        queueSize: 4,
        leavePartsOnError: false,
      }).done(),
    );
    return ref;
  }

  async get(ref: PayloadRef | string, scope: TenantScope): Promise<Buffer> {
    const sha = payloadSha(ref);
    const key = this.keyOf(sha, scope);
    const bytes = await this.request('get', key, async () => {
      try {
        const object = await this.client.send(new this.sdk.client.GetObjectCommand({ Bucket: this.bucket, Key: key }));
        if (!object.Body) throw new ObjectStoreError(`get s3://${this.bucket}/${key}: the object store answered without a body`);
        return Buffer.from(await object.Body.transformToByteArray());
      } catch (error) {
        if (error instanceof this.sdk.client.NoSuchKey || isNotFound(error)) throw new PayloadNotFoundError(sha, scope);
        throw error;
      }
    });
    return verifyPayload(sha, bytes);
  }

  async exists(sha256: string, scope: TenantScope): Promise<boolean> {
    return (await this.modifiedAt(sha256, scope)) !== undefined;
  }

  /** When the object was last written; undefined when there is none. */
  async modifiedAt(sha256: string, scope: TenantScope): Promise<Date | undefined> {
    return this.head(this.keyOf(payloadSha(sha256), scope));
  }

  /** Every object of the scope, with when it was last written. */
  async *list(scope: TenantScope): AsyncGenerator<StoredObject> {
    const prefix = `${this.scopePrefix(scope)}/`;
    let token: string | undefined;
    do {
      const page = await this.request('list', prefix, () =>
        this.client.send(
          new this.sdk.client.ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
        ),
      );
      for (const object of page.Contents ?? []) {
        const sha256 = object.Key?.slice(prefix.length);
        if (sha256 && SHA256_HEX.test(sha256) && object.LastModified) yield { sha256, lastModified: object.LastModified };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(sha256: string, scope: TenantScope): Promise<void> {
    const key = this.keyOf(payloadSha(sha256), scope);
    await this.request('delete', key, () => this.client.send(new this.sdk.client.DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  close(): void {
    this.client.destroy();
  }

  private keyOf(sha: string, scope: TenantScope): string {
    return `${this.scopePrefix(scope)}/${sha}`;
  }

  private scopePrefix(scope: TenantScope): string {
    for (const id of [scope.tenantId, scope.organizationId]) {
      if (!SCOPE_ID.test(id)) throw new InvalidPayloadRefError(`"${id}" cannot name a payload key segment`);
    }
    return [this.prefix, scope.tenantId, scope.organizationId].filter(Boolean).join('/');
  }

  /** The object's last write (to the second, as HEAD dates it), or undefined when there is none. */
  private async head(key: string): Promise<Date | undefined> {
    return this.request('head', key, async () => {
      try {
        const head = await this.client.send(new this.sdk.client.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
        if (!head.LastModified)
          throw new ObjectStoreError(`head s3://${this.bucket}/${key}: the object store answered without Last-Modified`);
        return head.LastModified;
      } catch (error) {
        if (error instanceof this.sdk.client.NotFound || isNotFound(error)) return undefined;
        throw error;
      }
    });
  }

  /** One request, after the SDK's retries: a failure names the object and keeps the SDK's error as its cause. */
  private async request<T>(action: string, key: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if (error instanceof StorageError) throw error;
      throw new ObjectStoreError(`${action} s3://${this.bucket}/${key} failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  }
}

/** A 404 however the server words it (HEAD answers carry no error code). */
function isNotFound(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return status === 404;
}
