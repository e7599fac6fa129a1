import { invalidConfig } from './tool-errors';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value of the first of `keys` that is present (not undefined or null), with the key it came from. */
export function firstPresent(config: Record<string, unknown>, keys: readonly string[]): { key: string; value: unknown } | undefined {
  for (const key of keys) {
    const value = config[key];
    if (value !== undefined && value !== null) return { key, value };
  }
  return undefined;
}

/** A positive duration in seconds (number or numeric string), converted to ms; `fallbackSeconds` when absent. */
export function readTimeoutMs(tool: string, config: Record<string, unknown>, fallbackSeconds: number): number {
  const raw = config.timeout;
  if (raw === undefined || raw === null || raw === '') return fallbackSeconds * 1000;
  const seconds = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw invalidConfig(tool, `timeout must be a positive number of seconds, got ${JSON.stringify(raw)}`);
  return Math.round(seconds * 1000);
}

/** A step's timeout after its tool's ceiling, and how a timeout message says it (naming the ceiling when it capped the step's). */
export interface CappedTimeout {
  timeoutMs: number;
  timeoutText: string;
}

/**
 * `readTimeoutMs`, capped at `maxSeconds` (the operator's ceiling on any
 * step's timeout, README "Configuration"): a larger one runs for the
 * ceiling, and the text of a timeout says so.
 */
export function cappedTimeout(tool: string, config: Record<string, unknown>, fallbackSeconds: number, maxSeconds: number): CappedTimeout {
  const requested = readTimeoutMs(tool, config, fallbackSeconds);
  const ceiling = maxSeconds * 1000;
  if (requested <= ceiling) return { timeoutMs: requested, timeoutText: formatSeconds(requested) };
  return {
    timeoutMs: ceiling,
    timeoutText: `${formatSeconds(ceiling)} (timeout ${formatSeconds(requested)} capped at the ${formatSeconds(ceiling)} ceiling)`,
  };
}

/** "0.3s", "8s": seconds for messages. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
