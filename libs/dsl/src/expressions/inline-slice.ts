/**
 * Renders on the event loop within a slice of the work budget (see
 * render-slice.ts). A render past the slice throws RenderSliceExceeded,
 * unless `settled` already holds its outcome from a render done off the
 * loop: the scheduler's pure planner, synchronous, is planned again with
 * the outcomes of the renders it could not finish inline.
 */
import type { ExpressionEngine } from './expression-engine';
import { RenderSliceExceeded } from './render-slice';
import type { TemplateError } from './template-error';
import type { TemplateLimits } from './template-limits';
import { TemplateRenderer } from './template-renderer';

/** What a render done off the loop came to. */
export type SettledRender = { value: unknown } | { error: TemplateError };

/** The outcome of rendering `template` over `scope` off the loop, if it was. */
export type SettledRenders = (template: string, scope: Record<string, unknown>) => SettledRender | undefined;

export class InlineSlice extends TemplateRenderer {
  private readonly limits: Readonly<TemplateLimits>;

  constructor(private readonly engine: ExpressionEngine, work: number, private readonly settled?: SettledRenders) {
    super();
    this.limits = Object.freeze({ ...engine.limits, maxWork: Math.min(work, engine.limits.maxWork) });
  }

  renderString(template: string, scope: Record<string, unknown>): unknown {
    try {
      return this.engine.renderWithin(template, scope, this.limits);
    } catch (error) {
      const settled = error instanceof RenderSliceExceeded ? this.settled?.(template, scope) : undefined;
      if (!settled) throw error;
      if ('error' in settled) throw settled.error;
      return settled.value;
    }
  }
}
