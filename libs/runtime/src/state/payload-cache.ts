import {
  EventType,
  isListParts,
  isLoopResultParts,
  LIST_PARTS_MEDIA_TYPE,
  liveWork,
  LOOP_RESULT_MEDIA_TYPE,
  partItems,
  type ExecutionState,
  type Json,
  type LedgerEvent,
  type ListParts,
  type LoopState,
  type PayloadRef,
} from '@noetl/event-kernel';
import { ARROW_STREAM_MEDIA_TYPE, decodeFrameOutput, getJson, type PayloadStore, type TenantScope } from '@noetl/storage';

/** Reads a preloaded payload synchronously (the planner's `resolve`, `buildScope`); throws for one it was not given. */
export type Resolve = (ref: PayloadRef) => Json;

/** What the cache keeps at most: entries, and stored bytes (a large value is read, never kept). */
const DEFAULT_CAPACITY = { entries: 256, bytes: 64 * 2 ** 20 };

/**
 * Payload-store values by sha256, for the synchronous code that reads them.
 * `resolverFor` loads what one operation needs into a resolver of its own,
 * so the bounded cache (least recently used first out) can never evict a
 * value between its loading and its use. The store stays the only authority
 * (invariant 6). A list kept in parts (`ListParts`) is read part by part
 * through the cache and never kept whole, so a million-item collection costs
 * the cache its parts in use, not the list.
 */
export class PayloadCache {
  private readonly values = new Map<string, { value: Json; bytes: number }>();
  private heldBytes = 0;

  constructor(
    private readonly store: PayloadStore,
    private readonly scope: TenantScope,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

  /** A resolver holding exactly `refs` (misses read through `via`, default the cache's store). */
  async resolverFor(refs: Iterable<PayloadRef>, via: PayloadStore = this.store): Promise<Resolve> {
    const held = new Map<string, Json>();
    for (const ref of refs) if (!held.has(ref.sha256)) held.set(ref.sha256, await this.get(ref, via));
    return (ref) => {
      if (!held.has(ref.sha256)) throw new Error(`payload ${ref.sha256} was not loaded for this operation`);
      return held.get(ref.sha256) as Json;
    };
  }

  /** One value (a miss read through `via`, default the cache's store); a list in parts comes whole. */
  async get(ref: PayloadRef, via: PayloadStore = this.store): Promise<Json> {
    if (ref.media_type === LIST_PARTS_MEDIA_TYPE) return this.items(await this.manifest(ref, via, isListParts), 0, Infinity, via);
    if (ref.media_type === LOOP_RESULT_MEDIA_TYPE) {
      const { stats, ...list } = await this.manifest(ref, via, isLoopResultParts);
      return { results: await this.items(list, 0, Infinity, via), stats };
    }
    return this.leaf(ref, via);
  }

  /** Items `first` .. `first + count - 1` of a stored list (JSON or in parts), reading only the parts that hold them. */
  async slice(ref: PayloadRef, first: number, count: number, via: PayloadStore = this.store): Promise<Json[]> {
    if (ref.media_type === LIST_PARTS_MEDIA_TYPE) return this.items(await this.manifest(ref, via, isListParts), first, count, via);
    const value = await this.leaf(ref, via);
    return Array.isArray(value) ? value.slice(first, first + count) : [];
  }

  /** A manifest in the payload store, checked to be one (a ref whose media type says so holds one). */
  private async manifest<T extends ListParts>(ref: PayloadRef, via: PayloadStore, is: (value: unknown) => value is T): Promise<T> {
    const value = await this.leaf(ref, via);
    if (!is(value)) throw new Error(`payload ${ref.sha256} (${ref.media_type}) does not hold a list manifest`);
    return value;
  }

  private async items(list: ListParts, first: number, count: number, via: PayloadStore): Promise<Json[]> {
    const out: Json[] = [];
    let start = 0;
    for (const part of list.parts) {
      const size = partItems(part);
      const from = Math.max(first - start, 0);
      const to = Math.min(first + count - start, size);
      start += size;
      if (from >= to) continue;
      if ('nulls' in part) for (let i = from; i < to; i += 1) out.push(null);
      else {
        const values = 'values' in part ? part.values : await this.leaf(part.ref, via);
        for (let i = from; i < to; i += 1) out.push((Array.isArray(values) ? values[i] : undefined) ?? null);
      }
      if (start >= first + count) break;
    }
    return out;
  }

  /**
   * One value read for a single use and not kept (a streamed chunk's rows,
   * which only the one call that gets the chunk reads): a long stream would
   * otherwise fill the cache with chunks nobody reads again, and the
   * process's memory with them.
   */
  async readOnce(ref: PayloadRef, via: PayloadStore = this.store): Promise<Json> {
    return this.values.get(ref.sha256)?.value ?? read(ref, via, this.scope);
  }

  private async leaf(ref: PayloadRef, via: PayloadStore): Promise<Json> {
    const cached = this.values.get(ref.sha256);
    if (cached) {
      this.values.delete(ref.sha256);
      this.values.set(ref.sha256, cached);
      return cached.value;
    }
    const value = await read(ref, via, this.scope);
    const bytes = ref.bytes ?? 0;
    if (bytes > this.capacity.bytes / 4) return value;
    this.values.set(ref.sha256, { value, bytes });
    this.heldBytes += bytes;
    while (this.values.size > this.capacity.entries || this.heldBytes > this.capacity.bytes) {
      const [oldest, entry] = this.values.entries().next().value!;
      this.values.delete(oldest);
      this.heldBytes -= entry.bytes;
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
 * `only`, when given) and the execution result; with `closing`, also what
 * the planner reads when a finished loop closes (`refsToClose`: never a
 * running loop's collection or outputs, which only its frames read).
 */
export function refsOfState(
  state: ExecutionState,
  options: { closing?: (loop: LoopState) => PayloadRef[]; only?: ReadonlySet<string> },
): PayloadRef[] {
  const refs: PayloadRef[] = [];
  const names = options.only ?? Object.keys(state.results);
  for (const name of names) {
    const stored = Object.prototype.hasOwnProperty.call(state.results, name) ? state.results[name] : undefined;
    if (stored?.ref) refs.push(stored.ref);
  }
  if (state.resultRef) refs.push(state.resultRef);
  if (options.closing) for (const loopId of Object.keys(liveWork(state).loops)) refs.push(...options.closing(state.loops[loopId]!));
  return refs;
}

/**
 * The refs of an event the planner may read: a command's result
 * (`command.completed`'s `result_ref`, the step's value) and the envelope's
 * `payload_ref`. Not a frame's output nor a collection, which only a closing
 * loop (`refsToClose`) or a frame reads; not a streamed chunk's rows, which
 * only the call that gets the chunk reads; not a result the planner itself
 * stated (`step.exit`, `loop.done`), which templates reach through the state
 * (neither a loop nor a stream passes through the scheduler's memory).
 */
export function refsOfEvent(event: LedgerEvent): PayloadRef[] {
  const refs: PayloadRef[] = event.payload_ref ? [event.payload_ref] : [];
  if (event.event_type === EventType.CommandCompleted && isPayloadRef(event.payload.result_ref)) refs.push(event.payload.result_ref);
  return refs;
}

function isPayloadRef(value: unknown): value is PayloadRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PayloadRef).sha256 === 'string' &&
    typeof (value as PayloadRef).media_type === 'string'
  );
}
