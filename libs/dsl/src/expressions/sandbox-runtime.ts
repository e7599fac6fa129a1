/**
 * The runtime object handed to compiled templates in place of nunjucks' own.
 * Every variable read, attribute read and call in a template goes through it:
 *
 * - names resolve to own properties only (frames, `{% set %}` locals, the
 *   scope, then our globals), never through a prototype;
 * - `x.y` / `x['y']` read own data properties of dicts, list/string indices
 *   and `length`, then our Python method tables; `constructor`, `__proto__`
 *   and friends are always undefined, and functions are never handed out
 *   unless they are ours;
 * - a call succeeds only on a function we registered (see callables.ts);
 * - undefined values follow Jinja2's Undefined: one prints as nothing, is
 *   false, equals only undefined, compares false, has length 0 and is
 *   replaced by `default`; arithmetic with one, iterating one (`{% for %}`,
 *   `join`, `map`, ...), converting one (`int`, `tojson`) and reading a
 *   member of an undefined *name* throw UndefinedValue naming it. A missing
 *   member of a value is undefined all the way down (`resp.data.next.id`),
 *   as NoETL's data access is and as the NoETL fixtures rely on;
 * - loops, output and everything that builds a list or a string charge the
 *   render's budget (render-budget.ts).
 *
 * Nothing global is patched: this object exists per engine.
 */
import { exposeValue, isCallable } from './callables';
import { FORBIDDEN_MEMBERS, type KnownNames } from './known-names';
import { baseRuntime, type NjEnvironment, type NjFilter, type NjFrame } from './nunjucks-internals';
import { lookupMethod } from './python-methods';
import {
  add,
  compare,
  concat,
  contains,
  hasOwn,
  indexSequence,
  modulo,
  multiply,
  pyStr,
  sliceValue,
  truthy,
  unwrapSafe,
} from './python-values';
import { renderBudget } from './render-budget';
import { UndefinedValue } from './template-error';

/** Per-render state the compiled code sees as `context`. */
export class RenderContext {
  private readonly locals = new Map<string, unknown>();

  constructor(
    readonly env: NjEnvironment,
    private readonly scope: Record<string, unknown>,
    private readonly globals: ReadonlyMap<string, unknown>,
    private readonly known: KnownNames,
  ) {}

  /** A filter by name, for filters that apply other filters (`map('int')`). */
  filter(name: unknown): NjFilter {
    if (typeof name !== 'string' || !this.known.filters.has(name)) throw new Error(`unknown filter '${String(name)}'`);
    return this.env.getFilter(name);
  }

  /** A test by name, for `select('odd')` and friends. */
  test(name: unknown): NjFilter {
    if (typeof name !== 'string' || !this.known.tests.has(name)) throw new Error(`unknown test '${String(name)}'`);
    return this.env.getTest(name);
  }

  lookup(name: string): unknown {
    if (this.locals.has(name)) return this.locals.get(name);
    if (hasOwn(this.scope, name)) return exposeValue(this.scope[name]);
    return this.globals.get(name);
  }

  setVariable(name: string, value: unknown): void {
    this.locals.set(name, value);
  }

  addExport(): void {
    // Templates here are never imported, so there is nothing to export.
  }
}

/** A failure inside a compiled template, with the (0-based) position last reached. */
export class RenderFault extends Error {
  constructor(
    readonly original: unknown,
    readonly lineno: number,
    readonly colno: number,
  ) {
    super(original instanceof Error ? original.message : String(original));
  }
}

/** `value`, which the template names `name` at (0-based) `lineno`:`colno`, unless it is undefined. */
function defined(value: unknown, name: string, lineno: number, colno: number): unknown {
  if (value === undefined) throw new RenderFault(new UndefinedValue(`'${name}' is undefined`), lineno, colno);
  return value;
}

/** `target.key` / `target[key]` as templates see it; a member of undefined or none is undefined (the compiler has checked names). */
export function memberLookup(target: unknown, key: unknown): unknown {
  const obj = unwrapSafe(target);
  if (obj === undefined || obj === null) return undefined;
  if (typeof key !== 'string' && typeof key !== 'number') return undefined;
  if (typeof key === 'string' && FORBIDDEN_MEMBERS.has(key)) return undefined;
  if (typeof obj === 'string' || Array.isArray(obj)) {
    if (typeof key === 'number') return exposeValue(indexSequence(obj, key));
    if (key === 'length') return obj.length;
    return lookupMethod(obj, key);
  }
  if (typeof obj !== 'object') return undefined;
  if (hasOwn(obj, key)) {
    const descriptor = Object.getOwnPropertyDescriptor(obj, key);
    return descriptor && 'value' in descriptor ? exposeValue(descriptor.value) : undefined;
  }
  return typeof key === 'string' ? lookupMethod(obj, key) : undefined;
}

function contextOrFrameLookup(context: RenderContext, frame: NjFrame, name: string): unknown {
  for (let f: NjFrame | null | undefined = frame; f; f = f.parent) {
    if (hasOwn(f.variables, name)) {
      const value = f.variables[name];
      if (value !== undefined) return exposeValue(value);
    }
  }
  return context.lookup(name);
}

function callWrap(fn: unknown, name: string, _context: unknown, args: unknown[]): unknown {
  if (isCallable(fn)) return fn(...args);
  if (fn === undefined || fn === null) throw new Error(`${name} is undefined and cannot be called`);
  throw new Error(`${name} is not callable`);
}

/** The output buffer with `piece` appended, within the output limit. */
function appendOutput(buffer: string, piece: string): string {
  const out = buffer + piece;
  renderBudget().output(out.length);
  return out;
}

function handleError(error: unknown, lineno: number, colno: number): RenderFault {
  return error instanceof RenderFault ? error : new RenderFault(error, lineno, colno);
}

function refuse(what: string): () => never {
  return () => {
    throw new Error(`${what} is not supported in expressions`);
  };
}

/** The helpers the safe compiler emits calls to, on top of nunjucks' own. */
export function createSandboxRuntime(): Record<string, unknown> {
  return {
    ...baseRuntime,
    memberLookup,
    contextOrFrameLookup,
    callWrap,
    handleError,
    defined,
    appendOutput,
    loopIteration: () => renderBudget().loopIteration(),
    suppressValue: (value: unknown) => pyStr(unwrapSafe(value)),
    inOperator: (item: unknown, container: unknown) => contains(item, container),
    makeMacro: refuse('macro'),
    truthy,
    or: (left: unknown, right: () => unknown) => (truthy(left) ? left : right()),
    and: (left: unknown, right: () => unknown) => (truthy(left) ? right() : left),
    compare,
    add,
    multiply,
    modulo,
    concat,
    slice: sliceValue,
  };
}
