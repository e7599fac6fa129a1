/**
 * Renders for code that can wait (the worker's interpreter): inline within
 * a slice of time and work (expressions/render-slice.ts), which nearly every
 * render fits in at no extra cost; a render past the slice is done again, whole, by `offload` (a
 * render thread) with the full budget, so the event loop is blocked at most
 * one slice per render (issue 25 item 7).
 */
import type { ExpressionEngine } from '../expressions/expression-engine';
import { InlineSlice, type InlineSliceOptions } from '../expressions/inline-slice';
import { RenderSliceExceeded } from '../expressions/render-slice';
import type { TemplateRenderer } from '../expressions/template-renderer';
import { settledOf, toRenderRequest, type OffloadRender, type RenderOp } from './render-request';
import { withSettledRenders } from './with-settled-renders';

/** The renderer methods, each awaited: they may leave the event loop. */
export interface Renderer {
  renderString(template: string, scope: Record<string, unknown>): Promise<unknown>;
  renderValue(value: unknown, scope: Record<string, unknown>): Promise<unknown>;
  evaluateCondition(when: string | boolean | undefined, scope: Record<string, unknown>): Promise<boolean>;
  /** `run`, pure synchronous code that renders (a retry policy's conditions), with its renders past the slice settled off the loop (withSettledRenders). */
  settle<T>(run: (renderer: TemplateRenderer) => T): Promise<T>;
}

export class OffloadingRenderer implements Renderer {
  private readonly inline: InlineSlice;

  constructor(
    private readonly expressions: ExpressionEngine,
    private readonly slice: InlineSliceOptions,
    private readonly offload: OffloadRender,
  ) {
    this.inline = new InlineSlice(expressions, slice);
  }

  async settle<T>(run: (renderer: TemplateRenderer) => T): Promise<T> {
    try {
      return run(this.inline);
    } catch (error) {
      if (!(error instanceof RenderSliceExceeded)) throw error;
    }
    return withSettledRenders({ expressions: this.expressions, slice: this.slice, offload: this.offload }, run);
  }

  renderString(template: string, scope: Record<string, unknown>): Promise<unknown> {
    return this.render('string', template, scope);
  }

  renderValue(value: unknown, scope: Record<string, unknown>): Promise<unknown> {
    return this.render('value', value, scope);
  }

  async evaluateCondition(when: string | boolean | undefined, scope: Record<string, unknown>): Promise<boolean> {
    return (await this.render('condition', when, scope)) as boolean;
  }

  private async render(op: RenderOp, value: unknown, scope: Record<string, unknown>): Promise<unknown> {
    try {
      if (op === 'condition') return this.inline.evaluateCondition(value as string | boolean | undefined, scope);
      return op === 'string' ? this.inline.renderString(value as string, scope) : this.inline.renderValue(value, scope);
    } catch (error) {
      if (!(error instanceof RenderSliceExceeded)) throw error;
    }
    const settled = settledOf(await this.offload(toRenderRequest(op, value, scope)));
    if ('error' in settled) throw settled.error;
    return settled.value;
  }
}
