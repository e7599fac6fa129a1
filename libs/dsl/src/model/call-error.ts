/**
 * The one error shape a tool call produces (DSL.md s6 `error`, RESULT_SHAPES s6
 * `output.error`). Tools raise it, policies match on it, events record it.
 */
export const ERROR_KINDS = [
  'rate_limit',
  'server_error',
  'timeout',
  'connection',
  'client_error',
  'not_found',
  'auth',
  'db',
  'template',
  'code',
  'cancelled',
  /** The call would pass an operator's limit (nesting depth, child executions, loop size). */
  'limit',
  'internal',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export interface CallErrorInfo {
  kind: ErrorKind;
  message: string;
  retryable: boolean;
  /** HTTP status when the call was HTTP; `status` and `status_code` are aliases (fixtures read both). */
  status?: number;
  status_code?: number;
  /** `HTTP_<n>`, a SQLSTATE, or an exception name. */
  code?: string;
  /** Minimum wait the server asked for (429/503 `Retry-After`), in ms. */
  retry_after_ms?: number;
  /** A template error: the template that failed to render. */
  expression?: string;
}

/** Thrown by tools; carries the classified error and, when there was one, the raw result (e.g. an error body). */
export class CallError extends Error {
  constructor(
    readonly info: CallErrorInfo,
    readonly data?: unknown,
  ) {
    super(info.message);
    this.name = 'CallError';
  }
}

/** HTTP status -> kind and retryability (429, 5xx are transient; 4xx are not). */
export function classifyHttpStatus(status: number): Pick<CallErrorInfo, 'kind' | 'retryable'> {
  if (status === 429) return { kind: 'rate_limit', retryable: true };
  if (status === 401 || status === 403) return { kind: 'auth', retryable: false };
  if (status === 404) return { kind: 'not_found', retryable: false };
  if (status === 408) return { kind: 'timeout', retryable: true };
  if (status >= 500) return { kind: 'server_error', retryable: true };
  return { kind: 'client_error', retryable: false };
}

/** Builds the error of an HTTP response with status >= 400. */
export function httpCallError(status: number, message: string, retryAfterMs?: number): CallErrorInfo {
  return {
    ...classifyHttpStatus(status),
    message,
    status,
    status_code: status,
    code: `HTTP_${status}`,
    ...(retryAfterMs !== undefined ? { retry_after_ms: retryAfterMs } : {}),
  };
}
