/**
 * User code becomes the body of a function, so it may either assign `result = ...` (a global
 * in sloppy mode, or a local `let`/`const`) or end with a top-level `return ...`.
 */
export function wrapJsCode(code: string): string {
  return `(function () {\n${code}\n;return typeof result === 'undefined' ? undefined : result;\n}).call(globalThis)`;
}

/**
 * Runs before user code: a `console` whose lines go to the host emitter (then removed from the
 * global object), so `console.log` works and nothing else of the host is reachable.
 */
export const JS_PRELUDE = `(function () {
  const emit = globalThis.__noetl_emit;
  delete globalThis.__noetl_emit;
  const text = (v) => { if (typeof v === 'string') return v; try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch (e) { return String(v); } };
  const line = (stream) => (...args) => { emit(stream, args.map(text).join(' ')); };
  globalThis.console = { log: line('stdout'), info: line('stdout'), debug: line('stdout'), warn: line('stderr'), error: line('stderr') };
})();`;

/** Input keys that can be bound as globals: everything but the names the sandbox relies on. */
export function globalInputNames(input: Record<string, unknown>): string[] {
  return Object.keys(input).filter((key) => key !== '__proto__' && key !== 'globalThis');
}
