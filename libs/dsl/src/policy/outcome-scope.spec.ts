import { httpCallError, type CallErrorInfo } from '../model';
import { outcomeScope, responseBody, type CallOutcome } from './outcome-scope';

const httpRaw = (status: number, body: unknown) => ({
  status_code: status,
  headers: { 'content-type': 'application/json' },
  url: 'http://api/x',
  elapsed: 0.01,
  data: body,
  body,
});

/** Reads a dotted path the way a template would. */
function read(scope: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => {
    if (value === null || value === undefined) return undefined;
    return (value as Record<string, unknown>)[key];
  }, scope);
}

describe('outcomeScope', () => {
  it('describes an http success: output.data is the raw result, response and page are the body', () => {
    const body = { data: [{ id: 1 }], paging: { hasMore: true, page: 1 } };
    const raw = httpRaw(200, body);
    const scope = outcomeScope({ status: 'ok', data: raw, http: { status: 200, headers: { etag: 'x' } }, attempt: 1, durationMs: 12 });
    expect(scope).toEqual({
      output: {
        status: 'ok',
        data: raw,
        error: null,
        http: { status: 200, headers: { etag: 'x' } },
        meta: { attempt: 1, duration_ms: 12 },
        response: body,
      },
      response: body,
      page: body,
      error: null,
      _attempt: 1,
    });
    expect(read(scope, 'output.data.data.paging.hasMore')).toBe(true);
    expect(read(scope, 'response.paging.hasMore')).toBe(true);
    expect(read(scope, 'output.http.status')).toBe(200);
  });

  it('describes an http error: output.http.status, output.error.kind/retryable, status and status_code aliases, data kept', () => {
    const raw = httpRaw(503, { message: 'busy' });
    const error = httpCallError(503, 'HTTP 503 Service Unavailable', 1000);
    const scope = outcomeScope({ status: 'error', error, data: raw, http: { status: 503, headers: {} }, attempt: 2, durationMs: 40 });
    expect(read(scope, 'output.status')).toBe('error');
    expect(read(scope, 'output.http.status')).toBe(503);
    expect(read(scope, 'output.error.kind')).toBe('server_error');
    expect(read(scope, 'output.error.retryable')).toBe(true);
    expect(read(scope, 'output.error.status')).toBe(503);
    expect(read(scope, 'output.error.status_code')).toBe(503);
    expect(read(scope, 'output.error.code')).toBe('HTTP_503');
    expect(read(scope, 'output.data.data.message')).toBe('busy');
    expect(read(scope, 'output.meta.attempt')).toBe(2);
    expect(read(scope, 'error.status')).toBe(503);
    expect(scope.response).toBeNull();
    expect(scope.page).toBeNull();
    expect(scope._attempt).toBe(2);
  });

  it.each<[string, CallErrorInfo, number | undefined]>([
    ['status_code only', { kind: 'rate_limit', message: 'm', retryable: true, status_code: 429 }, 429],
    ['status only', { kind: 'rate_limit', message: 'm', retryable: true, status: 429 }, 429],
  ])('fills the status alias from %s', (_name, error, status) => {
    const scope = outcomeScope({ status: 'error', error, attempt: 1, durationMs: 1 });
    expect(read(scope, 'error.status')).toBe(status);
    expect(read(scope, 'error.status_code')).toBe(status);
  });

  it('takes the error status from the http facts when the error has none', () => {
    const scope = outcomeScope({
      status: 'error',
      error: { kind: 'server_error', message: 'm', retryable: true },
      http: { status: 502, headers: {} },
      attempt: 1,
      durationMs: 1,
    });
    expect(read(scope, 'error.status')).toBe(502);
    expect(read(scope, 'error.status_code')).toBe(502);
  });

  it('leaves status out of a non-http error and does not mutate it', () => {
    const error: CallErrorInfo = { kind: 'code', message: 'ZeroDivisionError', retryable: false, code: 'ZeroDivisionError' };
    const scope = outcomeScope({ status: 'error', error, attempt: 1, durationMs: 1 });
    expect(scope.error).toEqual(error);
    expect(scope.error).not.toBe(error);
    expect(scope.error).not.toHaveProperty('status');
    expect(read(scope, 'output.http')).toBeNull();
    expect(read(scope, 'output.data')).toBeNull();
    expect(read(scope, 'output.response')).toBeNull();
  });

  it('describes a python success: output.data and response are the returned value', () => {
    const value = { counter: 3, config: { a: 1 } };
    const scope = outcomeScope({ status: 'ok', data: value, attempt: 1, durationMs: 3 });
    expect(read(scope, 'output.data.counter')).toBe(3);
    expect(read(scope, 'output.response.counter')).toBe(3);
    expect(scope.response).toBe(value);
    expect(read(scope, 'output.http')).toBeNull();
    expect(read(scope, 'output.error')).toBeNull();
    expect(scope.error).toBeNull();
  });

  it('describes a postgres success: output.data.rows[0].x', () => {
    const raw = { rows: [{ x: 42 }], row_count: 1, columns: ['x'], status: 'ok', statement_count: 1 };
    const scope = outcomeScope({ status: 'ok', data: raw, attempt: 1, durationMs: 3 });
    expect((read(scope, 'output.data.rows') as Array<{ x: number }>)[0]?.x).toBe(42);
    expect(read(scope, 'output.data.row_count')).toBe(1);
    expect(scope.response).toBe(raw);
  });
});

describe('responseBody', () => {
  const ok = (data: unknown, http = true): CallOutcome => ({
    status: 'ok',
    data,
    ...(http ? { http: { status: 200, headers: {} } } : {}),
    attempt: 1,
    durationMs: 1,
  });

  it.each<[string, CallOutcome, unknown]>([
    ['an http result: its data', ok({ status_code: 200, data: { a: 1 }, body: { a: 1 } }), { a: 1 }],
    ['an http result whose body is JSON null', ok({ status_code: 200, data: null }), null],
    ['an http result with only body (Rust shape)', ok({ status_code: 200, body: 'text' }), 'text'],
    ['an http result with neither', ok({ status_code: 204 }), { status_code: 204 }],
    ['an http result that is not a mapping', ok('plain'), 'plain'],
    ['a non-http result: itself, even with a data key', ok({ data: 1 }, false), { data: 1 }],
  ])('of %s', (_name, outcome, body) => {
    expect(responseBody(outcome)).toEqual(body);
  });
});
