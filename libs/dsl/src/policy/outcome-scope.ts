import type { CallErrorInfo } from '../model';
import { isRecord } from './policy-values';

/** HTTP facts of a call, when the call was HTTP. */
export interface HttpFacts {
  status: number;
  headers: Record<string, string>;
}

/** The outcome of one tool call, as policies see it. `data` is the tool's raw result (RESULT_SHAPES s2-s5). */
export type CallOutcome =
  | { status: 'ok'; data: unknown; http?: HttpFacts; attempt: number; durationMs: number }
  | { status: 'error'; error: CallErrorInfo; data?: unknown; http?: HttpFacts; attempt: number; durationMs: number };

/**
 * The template names a policy sees (DSL.md s6, RESULT_SHAPES s6 "Envelope"):
 * - `output`: `{status: 'ok'|'error', data, error, http: {status, headers}, meta: {attempt, duration_ms}, response}`;
 *   `data` is the raw result, also on error when there is one (an error body);
 *   `error.status` and `error.status_code` are aliases (so `output.error.status in [500, 502]` works);
 *   `response` is the legacy alias of the unwrapped body.
 * - `response`, `page`: the parsed response body of a success (see `responseBody`); none on error.
 * - `error`: the error with the status aliases; none on success.
 * - `_attempt`: the 1-based attempt number.
 * Keys are always present so that they shadow any outer name. What the
 * outcome does not have (`error` on success, `http` of a non-HTTP call, ...)
 * is none, not undefined: `{{ output.error.retryable }}` on a success is
 * then undefined and false, where reading a member of an undefined value
 * fails the template (Jinja2).
 */
export function outcomeScope(outcome: CallOutcome): Record<string, unknown> {
  const error = outcome.status === 'error' ? withStatusAliases(outcome.error, outcome.http) : null;
  const body = outcome.status === 'ok' ? (responseBody(outcome) ?? null) : null;
  const output: Record<string, unknown> = {
    status: outcome.status,
    data: outcome.data ?? null,
    error,
    http: outcome.http === undefined ? null : { status: outcome.http.status, headers: { ...outcome.http.headers } },
    meta: { attempt: outcome.attempt, duration_ms: outcome.durationMs },
    response: body,
  };
  return { output, response: body, page: body, error, _attempt: outcome.attempt };
}

/**
 * The parsed response body of a call. For an HTTP raw result
 * (`{status_code, headers, data, body, ...}`) it is `data` (else `body`);
 * for any other tool it is the raw result itself (postgres `{rows, ...}`,
 * the value a python or javascript task returned).
 */
export function responseBody(outcome: CallOutcome): unknown {
  const data = outcome.data;
  if (outcome.http === undefined || !isRecord(data)) return data;
  if ('data' in data) return data.data;
  if ('body' in data) return data.body;
  return data;
}

function withStatusAliases(error: CallErrorInfo, http: HttpFacts | undefined): CallErrorInfo {
  const status = error.status ?? error.status_code ?? http?.status;
  return status === undefined ? { ...error } : { ...error, status, status_code: error.status_code ?? status };
}
