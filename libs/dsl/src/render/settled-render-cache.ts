/**
 * The scheduler's renders too heavy for the event loop, settled off it (see
 * expressions/render-slice.ts). The scheduler plans inside a transaction
 * that holds a pooled connection and the execution's stream lock: it must
 * not wait there for a render thread. So a pass that meets such a render is
 * abandoned (rolled back), the render is settled here with no connection
 * held, and the pass runs again; its inline slice then finds the outcome
 * here (`lookup`). Renders are pure, so a template over the same scope
 * comes to the same outcome whenever it is rendered.
 */
import { LruCache } from '../expressions/lru-cache';
import type { RenderSliceExceeded } from '../expressions/render-slice';
import type { SettledRender, SettledRenders } from '../expressions/inline-slice';
import { settledOf, toRenderRequest, type OffloadRender } from './render-request';

/** Outcomes kept: a pass needs its own only until it runs again. */
const DEFAULT_CAPACITY = 128;

/** A render by its template and what its scope holds (lazy step results read). */
export function renderKey(template: string, scope: Record<string, unknown>): string {
  return `${template}\u0000${JSON.stringify(scope)}`;
}

export class SettledRenderCache {
  private readonly settled: LruCache<string, SettledRender>;
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly offload: OffloadRender,
    capacity = DEFAULT_CAPACITY,
  ) {
    this.settled = new LruCache(capacity);
  }

  /** The outcome of a render settled here, for an InlineSlice. */
  readonly lookup: SettledRenders = (template, scope) => this.settled.get(renderKey(template, scope));

  /** Renders what went past the slice off the loop, once however many passes ask at the same time. */
  settle(exceeded: RenderSliceExceeded): Promise<void> {
    const key = renderKey(exceeded.template, exceeded.scope);
    const running = this.inFlight.get(key);
    if (running) return running;
    const request = toRenderRequest('string', exceeded.template, exceeded.scope);
    const settling = this.offload(request)
      .then((reply) => this.settled.set(key, settledOf(reply)))
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, settling);
    return settling;
  }
}
