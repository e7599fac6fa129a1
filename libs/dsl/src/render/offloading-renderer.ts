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
import { settledOf, toRenderRequest, type RenderOp, type RenderReply, type RenderRequest } from './render-request';

/** Does one render off the event loop. */
export type OffloadRender = (request: RenderRequest) => Promise<RenderReply>;

/** The renderer methods, each awaited: they may leave the event loop. */
export interface Renderer {
  renderString(template: string, scope: Record<string, unknown>): Promise<unknown>;
  renderValue(value: unknown, scope: Record<string, unknown>): Promise<unknown>;
  evaluateCondition(when: string | boolean | undefined, scope: Record<string, unknown>): Promise<boolean>;
}

export class OffloadingRenderer implements Renderer {
  private readonly inline: InlineSlice;

  constructor(engine: ExpressionEngine, slice: InlineSliceOptions, private readonly offload: OffloadRender) {
    this.inline = new InlineSlice(engine, slice);
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
