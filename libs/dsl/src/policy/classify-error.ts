import { CallError, type CallErrorInfo } from '../model';
import { isRecord } from './policy-values';
import { isRetryableSqlState, SQLSTATE_CODE } from './sql-states';

/** Longest message kept; error text can echo whole payloads. */
const MAX_MESSAGE = 2000;

/** Node/undici network error codes: the peer could not be reached or hung up. Retryable. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Turns any thrown value into the one error shape (model/call-error.ts)
 * without leaking a stack trace: a `CallError` keeps its info; timeouts,
 * network errors and SQLSTATE-carrying database errors are classified by
 * name and code; a cancellation (AbortError) is `cancelled`; anything else
 * is `fallback` (`internal` for the runtime's own failures, `code` when the
 * caller knows user code threw it), not retryable.
 */
export function classifyError(e: unknown, fallback: 'internal' | 'code' = 'internal'): CallErrorInfo {
  if (e instanceof CallError) return { ...e.info };
  const name = errorName(e);
  const code = errorCode(e);
  const message = errorMessage(e);
  if (name === 'TimeoutError' || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return { kind: 'timeout', message, retryable: true, code: code ?? name };
  }
  if (name === 'AbortError') return { kind: 'cancelled', message, retryable: false, code: name };
  if (code !== undefined && CONNECTION_CODES.has(code)) return { kind: 'connection', message, retryable: true, code };
  if (code !== undefined && SQLSTATE_CODE.test(code) && isDatabaseError(e)) {
    return { kind: 'db', message, retryable: isRetryableSqlState(code), code };
  }
  return { kind: fallback, message, retryable: false, ...(name !== undefined ? { code: name } : {}) };
}

function errorName(e: unknown): string | undefined {
  if (!isObject(e)) return undefined;
  const name = e.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function errorCode(e: unknown): string | undefined {
  if (!isObject(e)) return undefined;
  const code = e.code;
  if (typeof code === 'string' && code !== '') return code;
  const cause = e.cause;
  return isObject(cause) && typeof cause.code === 'string' && cause.code !== '' ? cause.code : undefined;
}

/** pg's DatabaseError carries `severity` and a SQLSTATE `code`. */
function isDatabaseError(e: unknown): boolean {
  return isObject(e) && (e.name === 'DatabaseError' || typeof e.severity === 'string' || typeof e.sqlState === 'string');
}

function errorMessage(e: unknown): string {
  let text: string;
  if (typeof e === 'string') text = e;
  else if (isObject(e) && typeof e.message === 'string' && e.message !== '') text = e.message;
  else if (e instanceof Error) text = e.name;
  else text = describeThrown(e);
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}...` : text;
}

function describeThrown(e: unknown): string {
  if (e === undefined || e === null) return `thrown ${String(e)}`;
  if (typeof e === 'number' || typeof e === 'boolean' || typeof e === 'bigint') return `thrown ${String(e)}`;
  return `thrown ${isRecord(e) ? 'object' : typeof e}`;
}

function isObject(e: unknown): e is Record<string, unknown> {
  return typeof e === 'object' && e !== null;
}
