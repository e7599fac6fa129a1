/**
 * The inline slice of a render (issue 25 item 7): a render on the event loop
 * may take only a few milliseconds and a slice of the work budget, so that
 * several heavy renders at once cannot stall health probes and heartbeats.
 * (Work units alone do not bound time well enough: a million empty loop
 * iterations are two million units and about three seconds.) One that goes
 * past its slice is abandoned (a render is pure: nothing is lost) and done
 * again with the full budget off the event loop.
 */

/** An inline render went past its slice; `template` and `scope` are what it rendered. */
export class RenderSliceExceeded extends Error {
  constructor(
    readonly template: string,
    readonly scope: Record<string, unknown>,
  ) {
    super(`the render of "${template.slice(0, 80)}" needs more than its inline slice`);
    this.name = 'RenderSliceExceeded';
  }
}
