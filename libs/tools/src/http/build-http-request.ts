import { cappedTimeout, firstPresent, isRecord } from '../shared/read-config';
import { invalidConfig } from '../shared/tool-errors';

export const DEFAULT_HTTP_TIMEOUT_SECONDS = 30;
/** The ceiling of any step's `timeout` unless the worker is given another (NOETL_HTTP_MAX_TIMEOUT_SECONDS). */
export const MAX_HTTP_TIMEOUT_SECONDS = 300;

/** A request ready for undici, built from a rendered `kind: http` config. */
export interface HttpRequestPlan {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** How a timeout message says it (naming the ceiling when it capped the step's). */
  timeoutText: string;
}

const BODY_KEYS = ['body', 'payload', 'json', 'data'] as const;

/**
 * `method` (GET), `url` (alias `endpoint`), `params` (scalars -> query string; a list repeats
 * the key; objects are sent as JSON text), `headers`, `body` (aliases `payload`, `json`, `data`)
 * and `timeout` (seconds). Object bodies are JSON (content-type application/json unless set;
 * form-encoded when the content-type says application/x-www-form-urlencoded); a string body is
 * sent as is, except under `json`, which always encodes.
 */
export function buildHttpRequest(
  config: Record<string, unknown>,
  defaultTimeoutSeconds = DEFAULT_HTTP_TIMEOUT_SECONDS,
  maxTimeoutSeconds = MAX_HTTP_TIMEOUT_SECONDS,
): HttpRequestPlan {
  const method = readMethod(config.method);
  const url = readUrl(config);
  const headers = readHeaders(config.headers);
  appendParams(url, config.params);
  const plan: HttpRequestPlan = {
    method,
    url: url.toString(),
    headers,
    ...cappedTimeout('http', config, defaultTimeoutSeconds, maxTimeoutSeconds),
  };
  const source = firstPresent(config, BODY_KEYS);
  if (source) {
    const contentType = headerValue(headers, 'content-type');
    if (source.key !== 'json' && typeof source.value === 'string') {
      plan.body = source.value;
    } else if (contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded') && isRecord(source.value)) {
      plan.body = formEncode(source.value);
    } else {
      plan.body = JSON.stringify(source.value);
      if (contentType === undefined) headers['content-type'] = 'application/json';
    }
  }
  return plan;
}

/** Case-insensitive header lookup. */
export function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** Adds `extra` headers whose names are not already set (case-insensitively). */
export function withDefaultHeaders(headers: Record<string, string>, extra: Record<string, string>): Record<string, string> {
  const out = { ...headers };
  for (const [key, value] of Object.entries(extra)) if (headerValue(out, key) === undefined) out[key] = value;
  return out;
}

/** The URL for messages: no credentials, no query string (it may carry keys). */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

function readMethod(raw: unknown): string {
  if (raw === undefined || raw === null || raw === '') return 'GET';
  if (typeof raw !== 'string' || !/^[A-Za-z]+$/.test(raw))
    throw invalidConfig('http', `method must be an HTTP method name, got ${JSON.stringify(raw)}`);
  return raw.toUpperCase();
}

function readUrl(config: Record<string, unknown>): URL {
  const source = firstPresent(config, ['url', 'endpoint']);
  if (!source || typeof source.value !== 'string' || source.value.trim() === '')
    throw invalidConfig('http', 'url (or endpoint) is required');
  try {
    const url = new URL(source.value.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    return url;
  } catch {
    throw invalidConfig('http', `url must be an absolute http(s) URL, got "${safeUrl(source.value)}"`);
  }
}

function readHeaders(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) throw invalidConfig('http', 'headers must be a mapping');
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined || value === null) continue;
    headers[key] = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return headers;
}

function appendParams(url: URL, raw: unknown): void {
  if (raw === undefined || raw === null) return;
  if (!isRecord(raw)) throw invalidConfig('http', 'params must be a mapping');
  for (const [key, value] of Object.entries(raw)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      url.searchParams.append(key, scalarText(item));
    }
  }
}

function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function formEncode(fields: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) form.append(key, scalarText(item));
    }
  }
  return form.toString();
}
