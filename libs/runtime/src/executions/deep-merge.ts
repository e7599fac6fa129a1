import type { Json, JsonObject } from '@noetl/event-kernel';

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `overrides` deep-merged over `base` (mappings merge key by key; anything
 * else in `overrides` wins). Keys are data: one named `__proto__` or
 * `constructor` is written as a key of its own, never through the prototype.
 */
export function deepMerge(base: JsonObject, overrides: JsonObject): JsonObject {
  const merged: JsonObject = {};
  for (const [key, value] of Object.entries(base)) define(merged, key, value);
  for (const [key, value] of Object.entries(overrides)) {
    const current = Object.prototype.hasOwnProperty.call(merged, key) ? merged[key] : undefined;
    define(merged, key, isObject(current) && isObject(value) ? deepMerge(current, value) : value);
  }
  return merged;
}

function define(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
