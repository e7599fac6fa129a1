import type { Json, JsonObject } from '@noetl/event-kernel';

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `overrides` deep-merged over `base` (mappings merge key by key; anything else in `overrides` wins). */
export function deepMerge(base: JsonObject, overrides: JsonObject): JsonObject {
  const merged: JsonObject = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const current = merged[key];
    merged[key] = isObject(current) && isObject(value) ? deepMerge(current, value) : value;
  }
  return merged;
}
