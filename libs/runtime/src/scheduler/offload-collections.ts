import { EventType, type EventDraft, type EventTypeName } from '@noetl/event-kernel';
import { putJson, type PayloadStore, type TenantScope } from '@noetl/storage';

/**
 * A loop's collection above the inline limit goes to the payload store and
 * `loop.started` carries its ref instead (DESIGN.md invariant 6): the
 * planner states the collection, the scheduler decides where it lives.
 */
export async function offloadCollections(
  drafts: EventDraft<EventTypeName>[],
  payloads: { store: PayloadStore; scope: TenantScope; inlineLimitBytes: number },
): Promise<EventDraft<EventTypeName>[]> {
  return Promise.all(
    drafts.map(async (draft) => {
      if (draft.type !== EventType.LoopStarted) return draft;
      const started = draft as EventDraft<typeof EventType.LoopStarted>;
      const { collection, ...rest } = started.payload;
      if (!collection || Buffer.byteLength(JSON.stringify(collection)) <= payloads.inlineLimitBytes) return draft;
      const ref = await putJson(payloads.store, collection, payloads.scope);
      return { ...started, payload: { ...rest, collection_ref: ref } } as EventDraft<EventTypeName>;
    }),
  );
}
