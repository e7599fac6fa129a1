import type { Json, JsonObject } from '../event-payloads';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Writes `value` at a dotted key (`config.timeout`) inside `target`, creating
 * objects on the way. Keys that could reach a prototype are refused.
 */
export function setPath(target: JsonObject, key: string, value: Json): void {
  const parts = key.split('.');
  if (parts.some((part) => part === '' || FORBIDDEN.has(part))) {
    throw new RangeError(`refusing to set "${key}"`);
  }
  let node: JsonObject = target;
  for (const part of parts.slice(0, -1)) {
    const next = Object.prototype.hasOwnProperty.call(node, part) ? node[part] : undefined;
    if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      const created: JsonObject = {};
      node[part] = created;
      node = created;
    } else {
      node = next;
    }
  }
  node[parts[parts.length - 1]!] = value;
}
