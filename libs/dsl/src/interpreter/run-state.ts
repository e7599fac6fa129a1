import type { Renderer } from '../render';
import type { CallErrorInfo, SetOp } from '../model';
import { toPlainJson } from '../scope';
import { defineOwn, isRecord, keySegments, merged, withPath } from './write-path';

/**
 * Marks scopes known to hold only data properties, as a spread copies them:
 * a frame copies its scope several times per row, and copying descriptor by
 * descriptor (and defining each property) cost a third of a 100,000-row
 * loop's CPU. A scope gets accessors only where it is made (`buildScope`'s
 * lazy step results), never once it is copied. The mark is an own symbol
 * property, which a spread carries to the copy and no template, key listing
 * or JSON sees (a WeakSet of every copy cost more than the copies: a
 * weak-table insert per copy, three copies a row).
 */
const DATA_ONLY: unique symbol = Symbol('noetl.scope.dataOnly');
/** Scopes made elsewhere (not copies) found to hold only data. */
const foundDataOnly = new WeakSet<object>();

function holdsOnlyData(scope: Record<string | symbol, unknown>): boolean {
  if (scope[DATA_ONLY] === true || foundDataOnly.has(scope)) return true;
  for (const key of Object.keys(scope)) if (!('value' in Object.getOwnPropertyDescriptor(scope, key)!)) return false;
  foundDataOnly.add(scope);
  return true;
}

/** Writes an own data property of a scope this module copied (`put` keeps a known data-only scope fast). */
function put(target: Record<string | symbol, unknown>, key: string, value: unknown): void {
  // `__proto__` would set the prototype, and an accessor (a lazy step result) must become data: both are defined.
  if (key !== '__proto__' && target[DATA_ONLY] === true) target[key] = value;
  else defineOwn(target, key, value);
}

/**
 * A copy of `scope` with `extra` laid over it. Accessors are copied as
 * accessors, so a lazily resolved step result (a getter of the scheduler's
 * scope) is not read until a template reads it.
 */
export function extendScope(scope: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  if (holdsOnlyData(scope)) {
    // `merged` copies with Object.assign: a spread's copy gets a map that makes every later store slow (write-path.ts).
    const copy: Record<string | symbol, unknown> = merged(scope, extra);
    copy[DATA_ONLY] = true;
    return copy;
  }
  const out: Record<string | symbol, unknown> = {};
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(scope))) {
    if (!descriptor.enumerable) continue;
    Object.defineProperty(out, key, { ...descriptor, configurable: true, ...('value' in descriptor ? { writable: true } : {}) });
  }
  for (const key of Object.keys(extra)) put(out, key, extra[key]);
  return out;
}

/** What a task that failed but whose error a policy swallowed (`else: continue`) leaves as its result. */
export interface SwallowedError {
  status: 'error';
  error: CallErrorInfo;
  data?: unknown;
}

/**
 * The state of one pipeline run (a single tool is a pipeline of one task):
 * the writes made by `set:` in every scope, each finished task's raw result
 * and the render scope built from them (RESULT_SHAPES s7, s8).
 */
export class RunState {
  private ctx: Record<string, unknown>;
  private iterScope: Record<string, unknown>;
  private locals: Record<string, unknown> = {};
  /** ctx.* writes, flat by dotted key, in the order they must be applied (an overwritten key moves last). */
  private readonly ctxWritten: Record<string, unknown> = {};
  private readonly stepWritten: { key: string; value: unknown }[] = [];
  /** Raw results by task name, in the order of their latest run. */
  private readonly results = new Map<string, unknown>();
  private readonly swallowed = new Set<string>();
  private prev: unknown = undefined;

  constructor(private readonly base: Record<string, unknown>) {
    this.ctx = isRecord(base.ctx) ? base.ctx : {};
    this.iterScope = isRecord(base.iter) ? { ...base.iter } : {};
  }

  /**
   * The render scope; later layers win: the caller's scope (its lazy step
   * results stay lazy), finished tasks by name, ctx writes as bare keys,
   * pipeline-local variables, then `ctx` (and `vars` when the caller has it),
   * `iter`, `_prev`, `results`, and `extra`.
   */
  scope(extra: Record<string, unknown> = {}): Record<string, unknown> {
    const scope = extendScope(this.base, {});
    for (const [name, raw] of this.results) put(scope, name, raw);
    for (const key of Object.keys(this.ctxWritten)) {
      const head = keySegments(key)[0];
      put(scope, head, this.ctx[head]);
    }
    for (const key of Object.keys(this.locals)) put(scope, key, this.locals[key]);
    put(scope, 'ctx', this.ctx);
    if (Object.prototype.hasOwnProperty.call(this.base, 'vars')) put(scope, 'vars', this.ctx);
    put(scope, 'iter', this.iterScope);
    put(scope, '_prev', this.prev);
    put(scope, 'results', this.resultsObject());
    for (const key of Object.keys(extra)) put(scope, key, extra[key]);
    return scope;
  }

  /**
   * Renders every value of `ops` against one scope (each sees the scope as it
   * was before the block), then writes them in order. Template errors and
   * refused keys propagate before anything is written.
   */
  async applySet(ops: readonly SetOp[], scope: Record<string, unknown>, render: Renderer): Promise<void> {
    if (ops.length === 0) return;
    const rendered: { op: SetOp; value: unknown }[] = [];
    for (const op of ops) {
      keySegments(op.key);
      rendered.push({ op, value: await render.renderValue(op.value, scope) });
    }
    for (const { op, value } of rendered) this.write(op.scope, op.key, value);
  }

  write(scope: SetOp['scope'], key: string, value: unknown): void {
    switch (scope) {
      case 'ctx': {
        const plain = toPlainJson(value);
        this.ctx = withPath(this.ctx, key, plain);
        delete this.ctxWritten[key];
        defineOwn(this.ctxWritten, key, plain);
        return;
      }
      case 'iter':
        this.iterScope = withPath(this.iterScope, key, toPlainJson(value));
        return;
      case 'step':
        keySegments(key);
        this.stepWritten.push({ key, value: toPlainJson(value) });
        return;
      case 'local':
        this.locals = withPath(this.locals, key, value);
        return;
    }
  }

  /** Records a task's result: its raw result, or the error a policy swallowed. */
  recordResult(task: string, result: unknown, swallowed: boolean): void {
    this.results.delete(task);
    this.results.set(task, result);
    if (swallowed) this.swallowed.add(task);
    else this.swallowed.delete(task);
    this.prev = result;
  }

  resultOf(task: string): unknown {
    return this.results.get(task);
  }

  get ctxWrites(): Record<string, unknown> {
    return { ...this.ctxWritten };
  }

  get iter(): Record<string, unknown> {
    return this.iterScope;
  }

  /**
   * The pipeline's step result (DSL.md s2.2, RESULT_SHAPES s1.6 Recommend):
   * the fields of every task's object result (latest run last, so last wins;
   * a swallowed error adds no fields), each task's result under its name,
   * `results: {task: result}` and `status: 'ok'`.
   */
  pipelineResult(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    for (const [name, raw] of this.results) {
      if (this.swallowed.has(name) || !isRecord(raw)) continue;
      for (const [key, value] of Object.entries(raw)) defineOwn(result, key, value);
    }
    for (const [name, raw] of this.results) defineOwn(result, name, raw);
    defineOwn(result, 'results', this.resultsObject());
    defineOwn(result, 'status', 'ok');
    return result;
  }

  /**
   * `result` with the `step.*` writes applied (a copy). A result that is not
   * a mapping becomes `{data: result}` first, so that the writes have a place
   * and `{{ step.data }}` still reads the value.
   */
  withStepWrites(result: unknown): unknown {
    if (this.stepWritten.length === 0) return result;
    let target: Record<string, unknown> = isRecord(result) ? result : { data: result };
    for (const { key, value } of this.stepWritten) target = withPath(target, key, value);
    return target;
  }

  private resultsObject(): Record<string, unknown> {
    const results: Record<string, unknown> = {};
    for (const [name, raw] of this.results) defineOwn(results, name, raw);
    return results;
  }
}
