import { EventType, type ExecutionState, type Json, type LedgerEvent, type PayloadRef } from '@noetl/event-kernel';
import { ARROW_STREAM_MEDIA_TYPE, decodeFrameOutput, getJson, type PayloadStore, type TenantScope } from '@noetl/storage';

/** Reads a preloaded payload synchronously (the planner's `resolve`, `buildScope`); throws for one it was not given. */
export type Resolve = (ref: PayloadRef) => Json;

/**
 * Payload-store values by sha256, for the synchronous code that reads them.
 * `resolverFor` loads what one operation needs into a resolver of its own,
 * so the bounded cache (least recently used first out) can never evict a
 * value between its loading and its use. The store stays the only authority
 * (invariant 6).
 */
export class PayloadCache {
  private readonly values = new Map<string, Json>();

  constructor(
    private readonly store: PayloadStore,
    private readonly scope: TenantScope,
    private readonly capacity = 256,
  ) {}

  /** A resolver holding exactly `refs` (misses read through `via`, default the cache's store). */
  async resolverFor(refs: Iterable<PayloadRef>, via: PayloadStore = this.store): Promise<Resolve> {
    const held = new Map<string, Json>();
    for (const ref of refs) if (!held.has(ref.sha256)) held.set(ref.sha256, await this.load(ref, via));
    return (ref) => {
      if (!held.has(ref.sha256)) throw new Error(`payload ${ref.sha256} was not loaded for this operation`);
      return held.get(ref.sha256) as Json;
    };
  }

  /** One value (a miss read through `via`, default the cache's store). */
  async get(ref: PayloadRef, via: PayloadStore = this.store): Promise<Json> {
    return this.load(ref, via);
  }

  /**
   * One value read for a single use and not kept (a streamed chunk's rows,
   * which only the one call that gets the chunk reads): a long stream would
   * otherwise fill the cache with chunks nobody reads again, and the
   * process's memory with them.
   */
  async readOnce(ref: PayloadRef, via: PayloadStore = this.store): Promise<Json> {
    return this.values.get(ref.sha256) ?? read(ref, via, this.scope);
  }

  private async load(ref: PayloadRef, via: PayloadStore): Promise<Json> {
    const cached = this.values.get(ref.sha256);
    if (cached !== undefined || this.values.has(ref.sha256)) {
      this.values.delete(ref.sha256);
      this.values.set(ref.sha256, cached as Json);
      return cached as Json;
    }
    const value = await read(ref, via, this.scope);
    this.values.set(ref.sha256, value);
    while (this.values.size > this.capacity) {
      const oldest = this.values.keys().next().value;
      if (oldest === undefined) break;
      this.values.delete(oldest);
    }
    return value;
  }
}

/** JSON as stored; a frame's Arrow output as its rows' results, in row order (what the planner aggregates). */
async function read(ref: PayloadRef, via: PayloadStore, scope: TenantScope): Promise<Json> {
  if (ref.media_type !== ARROW_STREAM_MEDIA_TYPE) return getJson(via, ref, scope);
  return decodeFrameOutput(await via.get(ref, scope)).map((row) => row.result ?? null);
}

/**
 * The refs a state's reader may resolve: step results (only those named in
 * `only`, when given) and the execution result; with `openLoops`, also what
 * the planner aggregates when a running loop closes (its collection, its
 * frames' outputs and its shards' results).
 */
export function refsOfState(state: ExecutionState, options: { openLoops: boolean; only?: ReadonlySet<string> }): PayloadRef[] {
  const refs: PayloadRef[] = [];
  const names = options.only ?? Object.keys(state.results);
  for (const name of names) {
    const stored = Object.prototype.hasOwnProperty.call(state.results, name) ? state.results[name] : undefined;
    if (stored?.ref) refs.push(stored.ref);
  }
  if (state.resultRef) refs.push(state.resultRef);
  if (options.openLoops) {
    for (const loop of Object.values(state.loops)) {
      if (loop.status !== 'RUNNING') continue;
      if (loop.collectionRef) refs.push(loop.collectionRef);
      // A frame whose results came inline is aggregated from them; only the others need their Arrow output read.
      for (const frame of Object.values(loop.frames)) if (frame.outputRef && !frame.results) refs.push(frame.outputRef);
      for (const shard of Object.values(loop.shards ?? {})) if (shard.resultRef) refs.push(shard.resultRef);
    }
  }
  return refs;
}

/**
 * The refs an event carries (`result_ref`, `output_ref`, ... and the
 * envelope's `payload_ref`); not a streamed chunk's rows, which only the call
 * that gets the chunk reads (a stream must not pass through the scheduler's memory).
 */
export function refsOfEvent(event: LedgerEvent): PayloadRef[] {
  const refs: PayloadRef[] = event.payload_ref ? [event.payload_ref] : [];
  if (event.event_type === EventType.CallPartial) return refs;
  for (const [key, value] of Object.entries(event.payload as object)) {
    if (key.endsWith('_ref') && isPayloadRef(value)) refs.push(value);
  }
  return refs;
}

function isPayloadRef(value: unknown): value is PayloadRef {
  return typeof value === 'object' && value !== null && typeof (value as PayloadRef).sha256 === 'string' && typeof (value as PayloadRef).media_type === 'string';
}
