import type { Json, JsonObject } from '@noetl/event-kernel';

/**
 * A rendered value made plain JSON, ready for an event payload: step-result
 * views become plain objects (they cannot be structured-cloned), `undefined`
 * object entries are dropped, `undefined` list items and non-finite numbers
 * become null, dates become ISO strings. Keys are copied as own data
 * properties (a key named `__proto__` stays a key).
 */
export function toPlainJson(value: unknown): Json {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      return null; // functions and symbols have no JSON form
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map((item: unknown) => toPlainJson(item));
  const source = value as Record<string, unknown>;
  const out: JsonObject = {};
  for (const key of Object.keys(source)) {
    const item = source[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    Object.defineProperty(out, key, { value: toPlainJson(item), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export function isJsonObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
