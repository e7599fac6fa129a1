import type { Json, JsonObject } from '../model';

/** A YAML mapping as plain data. */
export type RawMap = Record<string, unknown>;

export function isRawMap(value: unknown): value is RawMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `a.b` paths; the root path is the empty string. */
export function keyPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** `a[3]` paths. */
export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

export function has(raw: RawMap, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(raw, key) && raw[key] !== undefined;
}

/** Plain YAML data (already JSON-like) as the model's Json type. */
export function toJson(value: unknown): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(toJson);
  if (value instanceof Date) return value.toISOString();
  if (isRawMap(value)) return toJsonObject(value);
  return String(value);
}

export function toJsonObject(raw: RawMap): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(raw)) {
    // defineProperty: a YAML key "__proto__" must stay data, never a prototype.
    Object.defineProperty(out, key, { value: toJson(value), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export function isPositiveInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

export function isNonNegativeInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** Quoted list for messages: `"a", "b" or "c"`. */
export function quoteList(words: readonly string[], conjunction = 'or'): string {
  const quoted = words.map((w) => `"${w}"`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} ${conjunction} ${quoted[quoted.length - 1]}`;
}
