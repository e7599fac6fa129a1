/** Key segments that could reach a prototype; the scheduler refuses them too. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** A mapping as YAML, JSON or a tool produces it (not a list, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Sets an own data property, even for a key such as `__proto__`. */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * `{...a, ...b}`: every own enumerable property of both, `b`'s last. Made with
 * Object.assign where neither has a `__proto__` key (which assign would take
 * as the prototype): V8 (Node 20) makes a spread of two objects, and every
 * store into a spread's copy, many times slower, and a loop body merges its
 * input once per row.
 */
export function merged(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(a, '__proto__') && !Object.hasOwn(b, '__proto__')) return Object.assign({}, a, b);
  const out: Record<string, unknown> = {};
  for (const source of [a, b]) for (const key of Object.keys(source)) defineOwn(out, key, source[key]);
  return out;
}

/** The segments of a dotted `set:` key; throws a RangeError for an empty or prototype-reaching segment. */
export function keySegments(key: string): [string, ...string[]] {
  const parts = key.split('.');
  if (parts.some((part) => part === '' || FORBIDDEN.has(part))) throw new RangeError(`refusing to set "${key}"`);
  return parts as [string, ...string[]];
}

/**
 * A copy of `target` with `value` written at the dotted `key`, creating
 * mappings on the way (a non-mapping in the way is replaced). Only the
 * mappings along the path are copied; `target` is not mutated.
 */
export function withPath(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  return writeSegments(target, keySegments(key), value);
}

function writeSegments(
  target: Record<string, unknown>,
  [head, ...rest]: readonly [string, ...string[]],
  value: unknown,
): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...target };
  if (rest.length === 0) {
    defineOwn(copy, head, value);
    return copy;
  }
  const child = Object.prototype.hasOwnProperty.call(target, head) ? target[head] : undefined;
  defineOwn(copy, head, writeSegments(isRecord(child) ? child : {}, rest as [string, ...string[]], value));
  return copy;
}
