/**
 * The playbook expression engine (DSL.md §6): Jinja-syntax templates over a
 * scope of JSON-like values, rendered by nunjucks' compiler in a locked-down
 * form. See sandbox-runtime.ts for what templates can reach,
 * safe-compiler.ts for the Python semantics of operators and
 * template-limits.ts for how much one render may do.
 */
import type { TemplateFunction } from './callables';
import { checkTemplate, compileTemplate, type CompiledTemplate } from './compile-template';
import type { ExpressionEnv } from './expression-env';
import { adaptBuiltin, FILTERS, KEPT_BUILTIN_FILTERS, STRING_BUILTIN_FILTERS } from './filters';
import { exportValue } from './export-value';
import { createGlobals } from './globals';
import { LruCache } from './lru-cache';
import { baseRuntime, Environment, type NjEnvironment } from './nunjucks-internals';
import { BudgetExceeded, RenderBudget, SliceSpent, withBudget, type RenderDeadline } from './render-budget';
import { RenderSliceExceeded } from './render-slice';
import { createSandboxRuntime, RenderContext, RenderFault } from './sandbox-runtime';
import { TemplateError, templateError, UndefinedValue, type TemplateErrorCode } from './template-error';
import { DEFAULT_TEMPLATE_LIMITS, type TemplateLimits } from './template-limits';
import { KEPT_BUILTIN_TESTS, TESTS } from './template-tests';
import type { KnownNames } from './known-names';
import { holdsTemplate, isTemplate, TemplateRenderer } from './template-renderer';
import type { TemplateProblem } from './validate-template';

const DEFAULT_CACHE_SIZE = 1000;

export { holdsTemplate, isTemplate };

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

/** What a render on the event loop may do: its limits (a smaller work budget) and its time. */
export interface RenderSliceLimits {
  limits: Readonly<TemplateLimits>;
  deadline: RenderDeadline;
}

export class ExpressionEngine extends TemplateRenderer {
  private readonly nunjucks: NjEnvironment;
  private readonly runtime = createSandboxRuntime();
  private readonly globals: ReadonlyMap<string, TemplateFunction>;
  private readonly known: KnownNames;
  private readonly cache: LruCache<string, CompiledTemplate>;
  readonly limits: Readonly<TemplateLimits>;

  constructor(env: ExpressionEnv, options: ExpressionEngineOptions = {}) {
    super();
    const { env: nunjucks, filters, tests } = buildEnvironment();
    this.nunjucks = nunjucks;
    this.globals = createGlobals(env);
    this.known = { filters, tests, functions: new Set(this.globals.keys()) };
    this.cache = new LruCache(options.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.limits = Object.freeze({ ...DEFAULT_TEMPLATE_LIMITS, ...options.limits });
  }

  renderString(template: string, scope: Record<string, unknown>): unknown {
    return this.renderWithin(template, scope);
  }

  /**
   * renderString within `slice`: a render that goes past its time or its
   * work budget, where that is smaller than the engine's, throws
   * RenderSliceExceeded (see render-slice.ts) rather than a budget error.
   */
  renderWithin(template: string, scope: Record<string, unknown>, slice?: RenderSliceLimits): unknown {
    if (typeof template !== 'string' || !isTemplate(template)) return template;
    return this.execute(this.compile(template), template, scope, slice);
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

  /** Whether `error` (thrown inside a render) is the slice running out, rather than the engine's own budget. */
  private spent(slice: RenderSliceLimits, error: unknown): boolean {
    const cause = error instanceof RenderFault ? error.original : error;
    if (cause instanceof SliceSpent) return true;
    return cause instanceof BudgetExceeded && cause.limit === 'maxWork' && slice.limits.maxWork < this.limits.maxWork;
  }

  private compile(template: string): CompiledTemplate {
    const cached = this.cache.get(template);
    if (cached) return cached;
    const compiled = compileTemplate(template, this.known);
    this.cache.set(template, compiled);
    return compiled;
  }

  private execute(
    compiled: CompiledTemplate,
    template: string,
    scope: Record<string, unknown>,
    slice: RenderSliceLimits | undefined,
  ): unknown {
    const context = new RenderContext(this.nunjucks, scope, this.globals, this.known);
    const frame = new baseRuntime.Frame();
    frame.topLevel = true;
    let outcome: { error: unknown; result: unknown } | undefined;
    try {
      const budget = slice ? new RenderBudget(slice.limits, true, slice.deadline) : new RenderBudget(this.limits);
      return withBudget(budget, () => {
        compiled.root(this.nunjucks, context, frame, this.runtime, (error, result) => {
          outcome ??= { error, result };
        });
        if (!outcome) throw templateError('rendering did not complete', template);
        if (outcome.error) throw outcome.error;
        return compiled.native ? exportValue(outcome.result) : outcome.result;
      });
    } catch (error) {
      if (slice && this.spent(slice, error)) throw new RenderSliceExceeded(template, scope);
      throw renderFailure(error, template);
    }
  }
}
