import {
  canonicalJson,
  EventType,
  LIST_PARTS_MEDIA_TYPE,
  type EventDraft,
  type EventTypeName,
  type Json,
  type ListPart,
  type PayloadRef,
} from '@noetl/event-kernel';
import { JSON_MEDIA_TYPE, type PayloadStore, type TenantScope } from '@noetl/storage';

/** Where a planned batch's payloads go, and from what size a collection leaves the event. */
export interface PayloadPlacement {
  store: PayloadStore;
  scope: TenantScope;
  inlineLimitBytes: number;
  /** More items than this and a collection is stored in parts (NOETL_COLLECTION_OFFLOAD_ITEMS, seed 001). */
  offloadItems: number;
}

/**
 * At most this much JSON text per stored part of a collection, so a frame
 * reads about this much for its rows; above the object store's default tier
 * (NOETL_S3_MIN_BYTES, 256 KiB), so a large collection's parts go there.
 */
const PART_BYTES = 1024 * 1024;

/**
 * Stores what a planned batch refers to before it is appended (invariant
 * 6): payloads a rule staged on its draft (a lean loop close's manifest),
 * and each loop collection over the inline limit or `offloadItems`, which
 * `loop.started` then carries as `collection_ref`: the planner states the
 * collection, the scheduler decides where it lives. A large collection is
 * stored in parts of about PART_BYTES (1 MiB), so a frame reads the part that holds
 * its rows, never the whole list.
 */
export async function storePlannedPayloads(
  drafts: EventDraft<EventTypeName>[],
  placement: PayloadPlacement,
): Promise<EventDraft<EventTypeName>[]> {
  const stored: EventDraft<EventTypeName>[] = [];
  for (const draft of drafts) {
    for (const payload of draft.staged ?? []) await placement.store.put(payload.body, payload.ref.media_type, placement.scope);
    stored.push(
      draft.type === EventType.LoopStarted ? await offloadCollection(draft as EventDraft<typeof EventType.LoopStarted>, placement) : draft,
    );
  }
  return stored;
}

async function offloadCollection(
  started: EventDraft<typeof EventType.LoopStarted>,
  placement: PayloadPlacement,
): Promise<EventDraft<EventTypeName>> {
  const { collection, ...rest } = started.payload;
  if (!collection) return started;
  let ref: PayloadRef;
  if (collection.length > placement.offloadItems) ref = await putParts(collection, placement);
  else {
    const body = canonicalJson(collection);
    const bytes = Buffer.byteLength(body);
    if (bytes <= placement.inlineLimitBytes) return started;
    ref = bytes <= PART_BYTES ? await placement.store.put(body, JSON_MEDIA_TYPE, placement.scope) : await putParts(collection, placement);
  }
  return { ...started, payload: { ...rest, collection_ref: ref } } as EventDraft<EventTypeName>;
}

/** Items written at once: a block's canonical JSON is one string, not one per item to hold until its part is stored. */
const BLOCK_ITEMS = 1024;
/** A block whose text is longer is written item by item, so a part still ends near PART_BYTES. */
const BLOCK_BYTES = PART_BYTES / 64;

/** The collection as parts of about PART_BYTES of canonical JSON each, then their manifest; one part's text is held at a time. */
async function putParts(collection: Json[], placement: PayloadPlacement): Promise<PayloadRef> {
  const parts: ListPart[] = [];
  let texts: string[] = [];
  let items = 0;
  let bytes = 0;
  const flush = async (): Promise<void> => {
    // The canonical JSON of a list is its items' canonical JSON, comma-separated, in brackets.
    parts.push({ ref: await placement.store.put(`[${texts.join(',')}]`, JSON_MEDIA_TYPE, placement.scope), items });
    texts = [];
    items = 0;
    bytes = 0;
  };
  /** `text`: the canonical JSON of `count` items, comma-separated. */
  const add = async (text: string, count: number): Promise<void> => {
    if (texts.length > 0 && bytes + text.length > PART_BYTES) await flush();
    texts.push(text);
    items += count;
    bytes += text.length + 1;
  };
  for (let start = 0; start < collection.length; start += BLOCK_ITEMS) {
    const block = collection.slice(start, start + BLOCK_ITEMS);
    const text = canonicalJson(block);
    if (text.length <= BLOCK_BYTES) await add(text.slice(1, -1), block.length);
    else for (const item of block) await add(canonicalJson(item), 1);
  }
  if (texts.length > 0) await flush();
  return placement.store.put(canonicalJson({ items: collection.length, parts }), LIST_PARTS_MEDIA_TYPE, placement.scope);
}
