import type { PayloadReferenceRepository, Queryable, S3PayloadStore, TenantScope } from '@noetl/storage';

export interface ObjectCollection {
  objects: S3PayloadStore;
  references: PayloadReferenceRepository;
  /** An object younger than this is kept even when nothing references it yet: its event may be being appended. */
  graceMs: number;
}

/**
 * Retention of the object tier: deletes the scope's objects older than the
 * grace period that no event or execution references (after a purge, or
 * left by a transaction that rolled back after its put). Safe to repeat and
 * to interrupt: what one run leaves, the next finds. Returns what went.
 *
 * A put that reuses an old object writes it again (S3PayloadStore.put), so
 * each one is asked its age once more just before it goes: one written
 * since it was listed is about to be named by an event, and stays.
 */
export async function collectUnreferencedObjects(db: Queryable, scope: TenantScope, collection: ObjectCollection, now: Date): Promise<string[]> {
  const cutoff = now.getTime() - collection.graceMs;
  const listed = new Map<string, Date>();
  for await (const object of collection.objects.list(scope)) if (object.lastModified.getTime() <= cutoff) listed.set(object.sha256, object.lastModified);
  const referenced = await collection.references.referencedAmong(db, scope, [...listed.keys()]);
  const deleted: string[] = [];
  for (const [sha, lastModified] of listed) {
    if (referenced.has(sha)) continue;
    const modified = await collection.objects.modifiedAt(sha, scope);
    // HEAD dates to the second; a listing may carry milliseconds.
    if (!modified || wholeSeconds(modified) > wholeSeconds(lastModified)) continue;
    await collection.objects.delete(sha, scope);
    deleted.push(sha);
  }
  return deleted;
}

const wholeSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
