/**
 * A render sent off the event loop (see expressions/render-slice.ts) and
 * its answer, as they cross to a render thread by structured clone: the
 * scope as plain data (a step result's view, a Proxy, travels as the
 * result and the name of its kind, and is wrapped again on the other side),
 * a template failure as its fields, raised again as the same TemplateError.
 */
import { ExpressionEngine } from '../expressions/expression-engine';
import type { SettledRender } from '../expressions/inline-slice';
import { TemplateError, type TemplateErrorCode } from '../expressions/template-error';
import { withResultViews, type ResultViews } from '../scope/result-views';
import { unwrapResultView } from '../scope/step-result-view';

/** The engine a render thread builds, exported beside what it answers with (the thread loads this file). */
export { ExpressionEngine };

/** This file: what a render thread loads. */
export const RENDER_REQUEST_MODULE = __filename;

/** Which renderer method the request stands for. */
export type RenderOp = 'string' | 'value' | 'condition';

export interface RenderRequest {
  op: RenderOp;
  value: unknown;
  scope: Record<string, unknown>;
  views: ResultViews;
}

export interface TemplateFailure {
  message: string;
  expression: string;
  line?: number;
  column?: number;
  code: TemplateErrorCode;
}

export type RenderReply = { value: unknown } | { template: TemplateFailure } | { failure: string };

/** Does one render off the event loop (a render thread). */
export type OffloadRender = (request: RenderRequest) => Promise<RenderReply>;

/** The request for rendering `value` over `scope`; reading the scope resolves its lazy values (step results). */
export function toRenderRequest(op: RenderOp, value: unknown, scope: Record<string, unknown>): RenderRequest {
  const plain: Record<string, unknown> = {};
  const views: ResultViews = {};
  for (const key of Object.keys(scope)) {
    const item = scope[key];
    const view = unwrapResultView(item);
    if (view) views[key] = view.loop ? 'loop' : 'step';
    plain[key] = view ? view.result : item;
  }
  return { op, value, scope: plain, views };
}

/** The thread's side: the render done with `engine`'s full budget, every failure an answer. */
export function answerRenderRequest(engine: ExpressionEngine, request: RenderRequest): RenderReply {
  const scope = withResultViews(request.scope, request.views);
  try {
    if (request.op === 'condition') return { value: engine.evaluateCondition(request.value as string | boolean | undefined, scope) };
    return {
      value: request.op === 'string' ? engine.renderString(request.value as string, scope) : engine.renderValue(request.value, scope),
    };
  } catch (error) {
    if (!(error instanceof TemplateError)) return { failure: error instanceof Error ? error.message : String(error) };
    const { message, expression, line, column, code } = error;
    return {
      template: { message, expression, code, ...(line !== undefined ? { line } : {}), ...(column !== undefined ? { column } : {}) },
    };
  }
}

/** The reply as the render's outcome: its value, or the TemplateError the inline render would have thrown. */
export function settledOf(reply: RenderReply): SettledRender {
  if ('value' in reply) return { value: reply.value };
  if ('failure' in reply) throw new Error(reply.failure);
  const { message, expression, line, column, code } = reply.template;
  return { error: new TemplateError(message, expression, line, column, code) };
}
