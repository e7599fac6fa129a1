/**
 * The playbook expression engine (DSL.md §6): Jinja-syntax templates over a
 * scope of JSON-like values, rendered by nunjucks' compiler in a locked-down
 * form. See sandbox-runtime.ts for what templates can reach,
 * safe-compiler.ts for the Python semantics of operators and
 * template-limits.ts for how much one render may do.
 */
import type { TemplateFunction } from './callables';
import { checkTemplate, compileTemplate, type CompiledTemplate } from './compile-template';
import { isConditionMet } from './evaluate-condition';
import type { ExpressionEnv } from './expression-env';
import {
  adaptBuiltin, FILTERS, KEPT_BUILTIN_FILTERS, STRING_BUILTIN_FILTERS,
} from './filters';
import { exportValue } from './export-value';
import { createGlobals } from './globals';
import { LruCache } from './lru-cache';
import { baseRuntime, Environment, type NjEnvironment } from './nunjucks-internals';
import { isPlainObject } from './python-values';
import { BudgetExceeded, RenderBudget, withBudget } from './render-budget';
import { createSandboxRuntime, RenderContext, RenderFault } from './sandbox-runtime';
import { TemplateError, templateError, UndefinedValue, type TemplateErrorCode } from './template-error';
import { DEFAULT_TEMPLATE_LIMITS, type TemplateLimits } from './template-limits';
import { KEPT_BUILTIN_TESTS, TESTS } from './template-tests';
import type { KnownNames } from './known-names';
import type { TemplateProblem } from './validate-template';

const DEFAULT_CACHE_SIZE = 1000;

/** True when the string holds template syntax (`{{` or `{%`). */
export function isTemplate(value: string): boolean {
  return value.includes('{{') || value.includes('{%');
}

/** Whether each object or array a playbook holds has template syntax anywhere inside (see holdsTemplate). */
const templatesInside = new WeakMap<object, boolean>();

/**
 * True when `value` holds a template string anywhere (keys are not
 * rendered, so not looked at). A value without one renders to a copy of
 * itself whatever the scope, so its caller need not build a scope at all:
 * a loop body's static tool config, rendered once per row, is the case this
 * is for. The answer for an object is kept, so a body's spec is walked once
 * per frame (its objects are the frame's), not once per row.
 */
export function holdsTemplate(value: unknown): boolean {
  if (typeof value === 'string') return isTemplate(value);
  if (typeof value !== 'object' || value === null) return false;
  const known = templatesInside.get(value);
  if (known !== undefined) return known;
  const found = (Array.isArray(value) ? value : Object.values(value)).some(holdsTemplate);
  templatesInside.set(value, found);
  return found;
}

export interface ExpressionEngineOptions {
  /** How many compiled templates to keep (least recently used are dropped). Default 1000. */
  cacheSize?: number;
  /** Limits of one render; each defaults to DEFAULT_TEMPLATE_LIMITS. */
  limits?: Partial<TemplateLimits>;
}

export interface ExpressionCacheStats {
  size: number;
  capacity: number;
  hits: number;
  misses: number;
}

function buildEnvironment(): { env: NjEnvironment; filters: Set<string>; tests: Set<string> } {
  const env = new Environment([], { autoescape: false, throwOnUndefined: false });
  const filters = new Set<string>();
  const tests = new Set<string>();
  for (const name of KEPT_BUILTIN_FILTERS) env.addFilter(name, adaptBuiltin(name, env.getFilter(name), false));
  for (const name of STRING_BUILTIN_FILTERS) env.addFilter(name, adaptBuiltin(name, env.getFilter(name), true));
  for (const [name, filter] of FILTERS) env.addFilter(name, filter);
  for (const name of [...KEPT_BUILTIN_FILTERS, ...STRING_BUILTIN_FILTERS, ...FILTERS.keys()]) filters.add(name);
  for (const [name, test] of TESTS) env.addTest(name, test);
  for (const name of [...KEPT_BUILTIN_TESTS, ...TESTS.keys()]) tests.add(name);
  return { env, filters, tests };
}

function codeOf(error: unknown): TemplateErrorCode {
  if (error instanceof BudgetExceeded) return 'template_budget';
  return error instanceof UndefinedValue ? 'template_undefined' : 'template_error';
}

function renderFailure(error: unknown, template: string): TemplateError {
  if (error instanceof TemplateError) return error;
  if (error instanceof RenderFault) {
    const cause = error.original;
    const message = cause instanceof Error ? cause.message : String(cause);
    return templateError(message, template, error.lineno + 1, error.colno + 1, codeOf(cause));
  }
  return templateError(error instanceof Error ? error.message : String(error), template, undefined, undefined, codeOf(error));
}

export class ExpressionEngine {
  private readonly nunjucks: NjEnvironment;
  private readonly runtime = createSandboxRuntime();
  private readonly globals: ReadonlyMap<string, TemplateFunction>;
  private readonly known: KnownNames;
  private readonly cache: LruCache<string, CompiledTemplate>;
  readonly limits: Readonly<TemplateLimits>;

  constructor(env: ExpressionEnv, options: ExpressionEngineOptions = {}) {
    const { env: nunjucks, filters, tests } = buildEnvironment();
    this.nunjucks = nunjucks;
    this.globals = createGlobals(env);
    this.known = { filters, tests, functions: new Set(this.globals.keys()) };
    this.cache = new LruCache(options.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.limits = Object.freeze({ ...DEFAULT_TEMPLATE_LIMITS, ...options.limits });
  }

  /**
   * A string that is exactly one `{{ expr }}` (surrounding whitespace aside)
   * returns the expression's value (list, object, number, bool, or null,
   * also when it is undefined); mixed text returns a string (an undefined
   * value prints as nothing); strings without template syntax and
   * non-strings are returned as they are. Throws TemplateError.
   */
  renderString(template: string, scope: Record<string, unknown>): unknown {
    if (typeof template !== 'string' || !isTemplate(template)) return template;
    return this.execute(this.compile(template), template, scope);
  }

  /** Deep-renders every string inside objects and arrays (keys are not rendered). */
  renderValue<T = unknown>(value: T, scope: Record<string, unknown>): unknown {
    if (typeof value === 'string') return this.renderString(value, scope);
    if (Array.isArray(value)) return value.map((item: unknown) => this.renderValue(item, scope));
    if (!isPlainObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const rendered = this.renderValue(value[key], scope);
      // A store is far cheaper than defining a property; only `__proto__` must be defined, to stay a key.
      if (key === '__proto__') Object.defineProperty(out, key, { value: rendered, enumerable: true, writable: true, configurable: true });
      else out[key] = rendered;
    }
    return out;
  }

  /**
   * `when:` truthiness. Absent means no condition (true); booleans are taken
   * as they are; strings are rendered, then judged by isConditionMet.
   */
  evaluateCondition(when: string | boolean | undefined, scope: Record<string, unknown>): boolean {
    if (when === undefined) return true;
    if (typeof when === 'boolean') return when;
    return isConditionMet(this.renderString(when, scope));
  }

  /** Problems found by parsing and validating, without rendering. Empty when fine. */
  checkSyntax(template: string): TemplateProblem[] {
    if (!isTemplate(template)) return [];
    return checkTemplate(template, this.known);
  }

  cacheStats(): ExpressionCacheStats {
    const { size, capacity, hits, misses } = this.cache;
    return { size, capacity, hits, misses };
  }

  private compile(template: string): CompiledTemplate {
    const cached = this.cache.get(template);
    if (cached) return cached;
    const compiled = compileTemplate(template, this.known);
    this.cache.set(template, compiled);
    return compiled;
  }

  private execute(compiled: CompiledTemplate, template: string, scope: Record<string, unknown>): unknown {
    const context = new RenderContext(this.nunjucks, scope, this.globals, this.known);
    const frame = new baseRuntime.Frame();
    frame.topLevel = true;
    let outcome: { error: unknown; result: unknown } | undefined;
    try {
      return withBudget(new RenderBudget(this.limits), () => {
        compiled.root(this.nunjucks, context, frame, this.runtime, (error, result) => {
          outcome ??= { error, result };
        });
        if (!outcome) throw templateError('rendering did not complete', template);
        if (outcome.error) throw outcome.error;
        return compiled.native ? exportValue(outcome.result) : outcome.result;
      });
    } catch (error) {
      throw renderFailure(error, template);
    }
  }
}
