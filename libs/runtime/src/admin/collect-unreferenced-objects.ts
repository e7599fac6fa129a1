import { LIST_PARTS_MEDIA_TYPE, LOOP_RESULT_MEDIA_TYPE, type ListParts, type PayloadRef } from '@noetl/event-kernel';
import {
  getJson,
  PayloadNotFoundError,
  type PayloadReferenceRepository,
  type PayloadStore,
  type Queryable,
  type S3PayloadStore,
  type TenantScope,
} from '@noetl/storage';

/** Payloads whose parts are refs: what they name is referenced as long as they are. */
const MANIFEST_MEDIA_TYPES = [LIST_PARTS_MEDIA_TYPE, LOOP_RESULT_MEDIA_TYPE];

export interface ObjectCollection {
  objects: S3PayloadStore;
  /** Every tier, to read the manifests the ledger names (a small one lives in the database). */
  payloads: PayloadStore;
  references: PayloadReferenceRepository;
  /** An object younger than this is kept even when nothing references it yet: its event may be being appended. */
  graceMs: number;
}

/**
 * Retention of the object tier: deletes the scope's objects older than the
 * grace period that no event or execution references, directly or through a
 * manifest it names (a large loop's collection parts, a loop result's frame
 * outputs): those a purge left, or a transaction that rolled back after its
 * put. Safe to repeat and to interrupt: what one run leaves, the next finds.
 * A manifest that cannot be read stops the run before it deletes anything.
 * Returns what went.
 *
 * A put that reuses an old object writes it again (S3PayloadStore.put), so
 * each one is asked its age once more just before it goes: one written
 * since it was listed is about to be named by an event, and stays.
 */
export async function collectUnreferencedObjects(
  db: Queryable,
  scope: TenantScope,
  collection: ObjectCollection,
  now: Date,
): Promise<string[]> {
  const cutoff = now.getTime() - collection.graceMs;
  const listed = new Map<string, Date>();
  for await (const object of collection.objects.list(scope))
    if (object.lastModified.getTime() <= cutoff) listed.set(object.sha256, object.lastModified);
  if (listed.size === 0) return [];
  const referenced = await collection.references.referencedAmong(db, scope, [...listed.keys()]);
  for (const sha of await namedByManifests(db, scope, collection)) referenced.add(sha);
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

/** Every address the manifests the ledger names refer to, through manifests of manifests too. */
async function namedByManifests(db: Queryable, scope: TenantScope, collection: ObjectCollection): Promise<Set<string>> {
  const named = new Set<string>();
  const pending: PayloadRef[] = await collection.references.refsOfTypes(db, scope, MANIFEST_MEDIA_TYPES);
  const read = new Set<string>();
  for (let ref = pending.pop(); ref; ref = pending.pop()) {
    if (read.has(ref.sha256)) continue;
    read.add(ref.sha256);
    const manifest = await getJson<ListParts>(collection.payloads, ref, scope).catch((error: unknown) => {
      // Gone already (an earlier run, or never stored): it names nothing that must stay.
      if (error instanceof PayloadNotFoundError) return undefined;
      throw error;
    });
    for (const part of manifest?.parts ?? []) {
      if (!('ref' in part)) continue;
      named.add(part.ref.sha256);
      if (MANIFEST_MEDIA_TYPES.includes(part.ref.media_type)) pending.push(part.ref);
    }
  }
  return named;
}

const wholeSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
