import type { CallErrorInfo } from '@noetl/dsl';
import { errorCode, errorMessage } from '../shared/tool-errors';
import { safeUrl } from './build-http-request';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export interface HttpFailureContext {
  method: string;
  url: string;
  /** The timeout as a message says it (see HttpRequestPlan). */
  timeoutText: string;
  /** The caller's signal aborted (cancellation, lease loss). */
  cancelled: boolean;
  /** The per-request timeout fired. */
  timedOut: boolean;
}

/** A request that produced no response -> cancelled, timeout, connection (both retryable) or internal. */
export function classifyHttpFailure(err: unknown, at: HttpFailureContext): CallErrorInfo {
  const target = `http ${at.method} ${safeUrl(at.url)}`;
  if (at.cancelled) return { kind: 'cancelled', message: `${target} cancelled`, retryable: false, code: 'CANCELLED' };
  const code = causeCode(err);
  if (at.timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return { kind: 'timeout', message: `${target} timed out after ${at.timeoutText}`, retryable: true, code: code ?? 'TIMEOUT' };
  }
  if (code !== undefined && CONNECTION_CODES.has(code)) {
    return { kind: 'connection', message: `${target} failed: ${errorMessage(err)}`, retryable: true, code };
  }
  return { kind: 'internal', message: `${target} failed: ${errorMessage(err)}`, retryable: false, ...(code ? { code } : {}) };
}

/** The system error code, looking through `cause` (fetch-style wrappers). */
function causeCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 3 && current !== undefined && current !== null; depth++) {
    const code = errorCode(current);
    if (code !== undefined && !/^\d+$/.test(code)) return code;
    current = typeof current === 'object' ? (current as { cause?: unknown }).cause : undefined;
  }
  return undefined;
}
