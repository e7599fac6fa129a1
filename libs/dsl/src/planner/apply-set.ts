import { setPath, type Json, type JsonObject } from '@noetl/event-kernel';
import type { SetOp } from '../model';
import { isJsonObject, toPlainJson } from '../scope';
import type { PlanContext } from './plan-context';

/** A `set:` rendered against one scope: the ctx writes and the writes into the step result. */
export interface RenderedSet {
  ctx: JsonObject;
  step: { key: string; value: Json }[];
}

/**
 * Renders `set` ops in order against one scope (every value sees the same
 * scope, as in a Jinja `set` block). `ctx.*` (and a bare key, which has no
 * pipeline to be local to here) go to ctx; `step.*` into the step result;
 * `iter.*` belongs to a loop iteration and is the worker's. Literals keep
 * their type (`ctx.computed: 200` stays a number). Template errors propagate.
 */
export function renderSet(ctx: PlanContext, ops: readonly SetOp[], scope: Record<string, unknown>): RenderedSet {
  const rendered: RenderedSet = { ctx: {}, step: [] };
  for (const op of ops) {
    if (op.scope === 'iter') continue;
    const value = toPlainJson(ctx.env.renderer.renderValue(op.value, scope));
    if (op.scope === 'step') rendered.step.push({ key: op.key, value });
    else Object.defineProperty(rendered.ctx, op.key, { value, enumerable: true, writable: true, configurable: true });
  }
  return rendered;
}

export function hasKeys(object: JsonObject): boolean {
  return Object.keys(object).length > 0;
}

/** The result with `step.*` writes applied (a copy); a non-object result is replaced by an object. */
export function writeStepKeys(result: Json, writes: RenderedSet['step']): Json {
  if (writes.length === 0) return result;
  const target: JsonObject = isJsonObject(result) ? structuredClone(result) : {};
  for (const { key, value } of writes) setPath(target, key, value);
  return target;
}
