/**
 * Off-loop renders for synchronous code that may wait (a retry policy's
 * conditions at the worker):
 * `run` is called with an inline slice of the engine; when a render goes
 * past the slice it is done by `offload` with the full budget and `run` is
 * called again, from the start (it is pure), the slice now answering that
 * render with its settled outcome. So the event loop is blocked at most one
 * slice per render and run, and the outcome, values and template errors
 * alike, is the one the full budget gives inline.
 */
import type { ExpressionEngine } from '../expressions/expression-engine';
import { InlineSlice, type InlineSliceOptions, type SettledRender } from '../expressions/inline-slice';
import { RenderSliceExceeded } from '../expressions/render-slice';
import type { TemplateRenderer } from '../expressions/template-renderer';
import { settledOf, toRenderRequest, type OffloadRender } from './render-request';
import { renderKey } from './settled-render-cache';

/** Renders one call may settle off the loop; past them (a template whose scope differs run after run, say), `run` renders inline with the full budget. */
const MAX_SETTLED = 8;

export interface SettleOptions {
  expressions: ExpressionEngine;
  slice: InlineSliceOptions;
  offload: OffloadRender;
}

export async function withSettledRenders<T>(options: SettleOptions, run: (renderer: TemplateRenderer) => T): Promise<T> {
  const settled = new Map<string, SettledRender>();
  const slice = new InlineSlice(options.expressions, options.slice, (template, scope) => settled.get(renderKey(template, scope)));
  for (;;) {
    try {
      return run(slice);
    } catch (error) {
      if (!(error instanceof RenderSliceExceeded)) throw error;
      if (settled.size >= MAX_SETTLED) return run(options.expressions);
      const reply = await options.offload(toRenderRequest('string', error.template, error.scope));
      settled.set(renderKey(error.template, error.scope), settledOf(reply));
    }
  }
}
