/**
 * The only functions a template may call: our globals (`range`, `now`,
 * `uuid`) and the Python-style methods handed out by member lookup. Any other
 * function value that reaches a template (one put in the scope, a host method)
 * is neither callable nor visible.
 */
export type TemplateFunction = (...args: unknown[]) => unknown;

const allowed = new WeakSet<TemplateFunction>();

export function markCallable<F extends TemplateFunction>(fn: F): F {
  allowed.add(fn);
  return fn;
}

export function isCallable(value: unknown): value is TemplateFunction {
  return typeof value === 'function' && allowed.has(value as TemplateFunction);
}

/** What a template may see of a host value: functions only if we handed them out. */
export function exposeValue(value: unknown): unknown {
  return typeof value === 'function' && !isCallable(value) ? undefined : value;
}

/** nunjucks passes `name=value` arguments as a trailing object tagged `__keywords`. */
export function isKeywordArgs(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, '__keywords');
}

/** Splits positional arguments from a trailing keyword-argument object. */
export function splitArgs(args: readonly unknown[]): { positional: unknown[]; keywords: Record<string, unknown> } {
  const last = args[args.length - 1];
  if (!isKeywordArgs(last)) return { positional: [...args], keywords: {} };
  const keywords: Record<string, unknown> = {};
  for (const key of Object.keys(last)) if (key !== '__keywords') keywords[key] = last[key];
  return { positional: args.slice(0, -1), keywords };
}

/** Positional arguments; keyword arguments are refused with a readable message. */
export function positionalOnly(name: string, args: readonly unknown[]): unknown[] {
  const { positional, keywords } = splitArgs(args);
  const names = Object.keys(keywords);
  if (names.length > 0) throw new Error(`${name}() does not accept keyword arguments (${names.join(', ')})`);
  return positional;
}
