/**
 * Renders on the event loop within a slice of the work budget (see
 * render-slice.ts). A render past the slice throws RenderSliceExceeded,
 * unless `settled` already holds its outcome from a render done off the
 * loop: the scheduler's pure planner, synchronous, is planned again with
 * the outcomes of the renders it could not finish inline.
 */
import type { ExpressionEngine, RenderSliceLimits } from './expression-engine';
import { RenderSliceExceeded } from './render-slice';
import type { TemplateError } from './template-error';
import { TemplateRenderer } from './template-renderer';

/** What a render done off the loop came to. */
export type SettledRender = { value: unknown } | { error: TemplateError };

/** The outcome of rendering `template` over `scope` off the loop, if it was. */
export type SettledRenders = (template: string, scope: Record<string, unknown>) => SettledRender | undefined;

/** How much of a render the event loop does: `ms` milliseconds on `clock`, at most `work` units (template-limits.ts). */
export interface InlineSliceOptions {
  work: number;
  ms: number;
  clock: () => number;
}

export class InlineSlice extends TemplateRenderer {
  private readonly slice: RenderSliceLimits;

  constructor(
    private readonly expressions: ExpressionEngine,
    options: InlineSliceOptions,
    private readonly settled?: SettledRenders,
  ) {
    super();
    this.slice = {
      limits: Object.freeze({ ...expressions.limits, maxWork: Math.min(options.work, expressions.limits.maxWork) }),
      deadline: { clock: options.clock, ms: options.ms },
    };
  }

  renderString(template: string, scope: Record<string, unknown>): unknown {
    try {
      return this.expressions.renderWithin(template, scope, this.slice);
    } catch (error) {
      const settled = error instanceof RenderSliceExceeded ? this.settled?.(template, scope) : undefined;
      if (!settled) throw error;
      if ('error' in settled) throw settled.error;
      return settled.value;
    }
  }
}
