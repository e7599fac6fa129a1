import type { ExecutionState, Json, LedgerEvent, PayloadRef } from '@noetl/event-kernel';
import { ARROW_STREAM_MEDIA_TYPE, decodeFrameOutput, getJson, type PayloadStore, type TenantScope } from '@noetl/storage';

/**
 * Payload-store values by sha256, loaded ahead of the synchronous code that
 * reads them (the planner's `resolve`, `buildScope`). Bounded, least recently
 * used first out. The store stays the only authority (invariant 6).
 */
export class PayloadCache {
  private readonly values = new Map<string, Json>();

  constructor(
    private readonly store: PayloadStore,
    private readonly scope: TenantScope,
    private readonly capacity = 256,
  ) {}

  /** Loads every ref the state's results and loops point at (misses read through `via`, default the cache's store). */
  async preloadState(state: ExecutionState, via?: PayloadStore): Promise<void> {
    const refs: PayloadRef[] = [];
    for (const stored of Object.values(state.results)) if (stored.ref) refs.push(stored.ref);
    for (const loop of Object.values(state.loops)) {
      if (loop.collectionRef) refs.push(loop.collectionRef);
      for (const frame of Object.values(loop.frames)) if (frame.outputRef) refs.push(frame.outputRef);
    }
    if (state.resultRef) refs.push(state.resultRef);
    await this.preload(refs, via);
  }

  /** Loads the refs an event carries (`result_ref`, `output_ref`, ... and the envelope's `payload_ref`). */
  async preloadEvent(event: LedgerEvent, via?: PayloadStore): Promise<void> {
    const refs: PayloadRef[] = event.payload_ref ? [event.payload_ref] : [];
    for (const [key, value] of Object.entries(event.payload as object)) {
      if (key.endsWith('_ref') && isPayloadRef(value)) refs.push(value);
    }
    await this.preload(refs, via);
  }

  async preload(refs: readonly PayloadRef[], via: PayloadStore = this.store): Promise<void> {
    for (const ref of refs) {
      if (this.values.has(ref.sha256)) {
        this.touch(ref.sha256);
        continue;
      }
      this.remember(ref.sha256, await this.load(ref, via));
    }
  }

  /** JSON as stored; a frame's Arrow output as its rows' results, in row order (what the planner aggregates). */
  private async load(ref: PayloadRef, via: PayloadStore): Promise<Json> {
    if (ref.media_type !== ARROW_STREAM_MEDIA_TYPE) return getJson(via, ref, this.scope);
    return decodeFrameOutput(await via.get(ref, this.scope)).map((row) => row.result ?? null);
  }

  /** @throws when the ref was not preloaded: a caller bug, not a data problem. */
  resolve = (ref: PayloadRef): Json => {
    if (!this.values.has(ref.sha256)) throw new Error(`payload ${ref.sha256} was not preloaded`);
    return this.values.get(ref.sha256) as Json;
  };

  async get(ref: PayloadRef): Promise<Json> {
    await this.preload([ref]);
    return this.resolve(ref);
  }

  private touch(sha: string): void {
    const value = this.values.get(sha) as Json;
    this.values.delete(sha);
    this.values.set(sha, value);
  }

  private remember(sha: string, value: Json): void {
    this.values.set(sha, value);
    while (this.values.size > this.capacity) {
      const oldest = this.values.keys().next().value;
      if (oldest === undefined) break;
      this.values.delete(oldest);
    }
  }
}

function isPayloadRef(value: unknown): value is PayloadRef {
  return typeof value === 'object' && value !== null && typeof (value as PayloadRef).sha256 === 'string' && typeof (value as PayloadRef).media_type === 'string';
}
