import type { Json } from '../model';

/** Receives one registration problem: a path like `workflow[2].retry[0].then.max_attempts` and a message. */
export type Report = (path: string, message: string) => void;

/** A mapping as YAML or JSON produces it (not a list, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `path.key`, or `path["ctx.key"]` when the key is not a plain identifier. */
export function childPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** A short description of a bad value for a message: never the whole value. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (isRecord(value)) return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

/** Reports every key of `raw` not in `allowed`. */
export function checkKeys(raw: Record<string, unknown>, allowed: readonly string[], path: string, report: Report, what: string): void {
  for (const key of Object.keys(raw)) {
    if (!allowed.includes(key)) {
      report(childPath(path, key), `unknown key \`${key}\` in ${what}; expected one of: ${allowed.join(', ')}`);
    }
  }
}

/** The first of `keys` present (not undefined/null) in `raw`: its name and value. */
export function pick(raw: Record<string, unknown>, keys: readonly string[]): { key: string; value: unknown } | undefined {
  for (const key of keys) {
    const value = raw[key];
    if (value !== undefined && value !== null) return { key, value };
  }
  return undefined;
}

export interface NumberRule {
  integer?: boolean;
  /** Inclusive lower bound. */
  min?: number;
  /** Exclusive lower bound. */
  above?: number;
}

/** Reads a number under the first present of `keys`; reports and falls back when it is absent-or-bad. */
export function readNumber(
  raw: Record<string, unknown>,
  keys: readonly string[],
  fallback: number,
  path: string,
  report: Report,
  rule: NumberRule,
): number {
  const found = pick(raw, keys);
  if (found === undefined) return fallback;
  const at = childPath(path, found.key);
  const value = found.value;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    report(at, `must be a number, got ${describe(value)}`);
    return fallback;
  }
  if (rule.integer === true && !Number.isInteger(value)) {
    report(at, `must be a whole number, got ${value}`);
    return fallback;
  }
  if (rule.min !== undefined && value < rule.min) {
    report(at, `must be at least ${rule.min}, got ${value}`);
    return fallback;
  }
  if (rule.above !== undefined && value <= rule.above) {
    report(at, `must be greater than ${rule.above}, got ${value}`);
    return fallback;
  }
  return value;
}

/** Reads a boolean; reports and falls back when it is not one. */
export function readBoolean(raw: Record<string, unknown>, key: string, fallback: boolean, path: string, report: Report): boolean {
  const value = raw[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') {
    report(childPath(path, key), `must be true or false, got ${describe(value)}`);
    return fallback;
  }
  return value;
}

/** A condition: a template string or a YAML boolean. Undefined when absent or bad (bad is reported). */
export function readWhen(value: unknown, path: string, report: Report): string | boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && value.trim() !== '') return value;
  report(path, `must be a template string or a boolean, got ${describe(value)}`);
  return undefined;
}

/** Checks that `value` is plain JSON (what a template or literal may be); reports the first offending path. */
export function asJson(value: unknown, path: string, report: Report): Json | undefined {
  const bad = firstNonJson(value, path);
  if (bad === undefined) return value as Json;
  report(bad.path, `must be a JSON value (string, number, boolean, null, list or mapping), got ${bad.what}`);
  return undefined;
}

function firstNonJson(value: unknown, path: string): { path: string; what: string } | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { path, what: String(value) };
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const bad = firstNonJson(item, `${path}[${index}]`);
      if (bad !== undefined) return bad;
    }
    return undefined;
  }
  if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      const bad = firstNonJson(item, childPath(path, key));
      if (bad !== undefined) return bad;
    }
    return undefined;
  }
  return { path, what: value instanceof Date ? 'a date' : typeof value };
}

/** Reads a dotted path (`data.items`, `rows.0.id`, `rows[0].id`) from a value; undefined when any step is missing. */
export function readPath(value: unknown, path: string): unknown {
  const segments = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((segment) => segment !== '');
  let current: unknown = value;
  for (const segment of segments) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (isRecord(current) && Object.prototype.hasOwnProperty.call(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

/** Deep merge of mappings: keys of `over` win; lists and scalars replace. Never mutates its inputs. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isRecord(base) || !isRecord(over)) return over;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    merged[key] = deepMerge(merged[key], value);
  }
  return merged;
}
