import {
  isAuthFailure,
  isConnectionException,
  isDeadlockState,
  isQueryCanceled,
  isSerializationFailureState,
  isServerGoingAway,
  SQLSTATE_CODE,
  type CallErrorInfo,
} from '@noetl/dsl';
import { errorCode, errorMessage } from '../shared/tool-errors';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
]);

const CONNECTION_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection timeout/i,
  /not queryable/i,
  /server closed the connection/i,
];

/** True when the error means the connection itself is unusable (release it destroyed). */
export function isConnectionLevel(err: unknown): boolean {
  return classifyPgError(err).kind === 'connection';
}

/**
 * A pg or socket error -> kind and retryability: connection problems are `connection`
 * (retryable); SQL errors are `db` with the SQLSTATE as `code` (retryable only for
 * serialization failures and deadlocks); a cancelled statement (statement_timeout) is `timeout`.
 * `where` prefixes the message (e.g. `command_2`).
 */
export function classifyPgError(err: unknown, where?: string): CallErrorInfo {
  const code = errorCode(err);
  const base = errorMessage(err);
  const detail =
    typeof err === 'object' && err !== null && typeof (err as { detail?: unknown }).detail === 'string'
      ? ` (${(err as { detail: string }).detail})`
      : '';
  const prefix = where ? `postgres: ${where} failed` : 'postgres';
  if (code !== undefined && SQLSTATE_CODE.test(code)) {
    const message = `${prefix} [SQLSTATE ${code}]: ${base}${detail}`;
    if (isConnectionException(code) || isServerGoingAway(code)) return { kind: 'connection', message, retryable: true, code };
    if (isAuthFailure(code)) return { kind: 'auth', message, retryable: false, code };
    if (isQueryCanceled(code)) return { kind: 'timeout', message, retryable: true, code };
    return { kind: 'db', message, retryable: isSerializationFailureState(code) || isDeadlockState(code), code };
  }
  if ((code !== undefined && CONNECTION_CODES.has(code)) || CONNECTION_MESSAGES.some((re) => re.test(base))) {
    return { kind: 'connection', message: `${prefix}: ${base}`, retryable: true, ...(code ? { code } : {}) };
  }
  return { kind: 'db', message: `${prefix}: ${base}`, retryable: false, ...(code ? { code } : {}) };
}
