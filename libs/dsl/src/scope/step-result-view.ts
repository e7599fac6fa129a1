/**
 * How a completed step's result looks to templates (RESULT_SHAPES §1.2, §1.3,
 * §1.7). The view is a read-only Proxy over the result itself:
 * - `.data` is the result's own `data` key when it has one; otherwise the
 *   result itself (Rust's rule), or, for a loop step, its `results` list;
 * - `.result` is the result's own `result` key when it has one; otherwise the
 *   result itself;
 * - every other read, the own keys and JSON serialisation are the result's,
 *   unchanged (the aliases are not enumerable, so `tojson` has no cycle).
 * Lists and scalars are returned as they are: the aliases apply to objects.
 */

export interface StepResultViewOptions {
  /** The result of a loop step (`{results, stats}`): `.data` is `results`. */
  loop?: boolean;
}

const ALIASES = new Set<PropertyKey>(['data', 'result']);

function hasOwn(target: object, key: PropertyKey): boolean {
  return Object.prototype.hasOwnProperty.call(target, key);
}

function isObjectRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The result behind each view and whether it is a loop step's: what a scope needs to cross a thread (a Proxy cannot be cloned). */
const viewed = new WeakMap<object, { result: Record<string, unknown>; loop: boolean }>();

/** The result `value` is a view of, and its kind; undefined when it is no view. */
export function unwrapResultView(value: unknown): { result: Record<string, unknown>; loop: boolean } | undefined {
  return typeof value === 'object' && value !== null ? viewed.get(value) : undefined;
}

export function stepResultView(value: unknown, options: StepResultViewOptions = {}): unknown {
  if (!isObjectRecord(value)) return value;
  const aliasOf = (key: PropertyKey): unknown => {
    if (key === 'data' && options.loop) return value['results'];
    return value;
  };
  const view = new Proxy(value, {
    get(target, key, receiver) {
      if (ALIASES.has(key) && !hasOwn(target, key)) return aliasOf(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
    has(target, key) {
      return (ALIASES.has(key) && !hasOwn(target, key)) || Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      const own = Reflect.getOwnPropertyDescriptor(target, key);
      if (own || !ALIASES.has(key) || !Object.isExtensible(target)) return own;
      // Reported so that own-property readers (the template sandbox) see the alias; not enumerable, so
      // Object.keys and JSON.stringify are unchanged.
      return { value: aliasOf(key), writable: false, enumerable: false, configurable: true };
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
    setPrototypeOf: () => false,
  });
  viewed.set(view, { result: value, loop: options.loop === true });
  return view;
}
