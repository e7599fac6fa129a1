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
 */
export async function collectUnreferencedObjects(db: Queryable, scope: TenantScope, collection: ObjectCollection, now: Date): Promise<string[]> {
  const cutoff = now.getTime() - collection.graceMs;
  const old: string[] = [];
  for await (const object of collection.objects.list(scope)) if (object.lastModified.getTime() <= cutoff) old.push(object.sha256);
  const referenced = await collection.references.referencedAmong(db, scope, old);
  const unreferenced = old.filter((sha) => !referenced.has(sha));
  for (const sha of unreferenced) await collection.objects.delete(sha, scope);
  return unreferenced;
}
