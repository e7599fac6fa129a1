import { ConfigError } from './config-error';

// Readers of one environment variable each: a value that is not what the variable takes throws a ConfigError naming it.

/** The environment `loadConfig` reads (`process.env`, or a test's own). */
export type Env = Record<string, string | undefined>;

export function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.map((p) => p.replace(':', '://')).join(' or ')}, got ${parsed.protocol}//`);
  }
  return raw;
}

/**
 * A comma-separated list of URLs (the nodes of a cluster), each checked as
 * `url` checks one; duplicates dropped, order kept; undefined when unset or empty.
 */
export function urlList(env: Env, name: string, protocols: string[]): string[] | undefined {
  const items = env[name]
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (!items || items.length === 0) return undefined;
  const checked = items.map((item, i) => {
    const label = items.length > 1 ? `${name} (URL ${i + 1} of ${items.length})` : name;
    return url({ [label]: item }, label, protocols) ?? item;
  });
  return [...new Set(checked)];
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** A comma-separated list of names; undefined when unset or empty. */
export function list(env: Env, name: string): string[] | undefined {
  const names = env[name]
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return names && names.length > 0 ? [...new Set(names)] : undefined;
}
