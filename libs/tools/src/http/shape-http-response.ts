import { CallError, httpCallError } from '@noetl/dsl';
import { safeUrl } from './build-http-request';

/** The raw result of an HTTP call (RESULT_SHAPES s2): both families' keys. */
export interface HttpResult {
  status_code: number;
  headers: Record<string, string>;
  url: string;
  /** Seconds from sending the request to the end of the body. */
  elapsed: number;
  /** The parsed JSON body, or its text; `body` is the same value. */
  data: unknown;
  body: unknown;
}

/** Response headers with lower-case names; repeated headers joined with ", ". */
export function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    headers[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** JSON when the text parses (whatever the content-type, as both references do), else the text. JSON `null` stays null. */
export function parseBody(text: string): unknown {
  if (text.trim() === '') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function shapeHttpResult(input: {
  status: number;
  headers: Record<string, string>;
  url: string;
  elapsedMs: number;
  text: string;
}): HttpResult {
  const data = parseBody(input.text);
  return {
    status_code: input.status,
    headers: input.headers,
    url: input.url,
    elapsed: Math.round(input.elapsedMs) / 1000,
    data,
    body: data,
  };
}

/** `Retry-After` as delay-seconds or an HTTP-date, in ms from `nowMs` (never negative); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The error of a response with status >= 400; the result envelope rides along as `data`. */
export function httpStatusError(result: HttpResult, method: string, statusText: string, nowMs: number): CallError {
  const snippet = bodySnippet(result.data);
  const message = `http ${method} ${safeUrl(result.url)} returned ${result.status_code}${statusText ? ` ${statusText}` : ''}${snippet ? `: ${snippet}` : ''}`;
  return new CallError(httpCallError(result.status_code, message, parseRetryAfter(result.headers['retry-after'], nowMs)), result);
}

function bodySnippet(data: unknown): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  if (text === undefined) return '';
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}...` : oneLine;
}
