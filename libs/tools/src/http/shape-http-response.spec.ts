import { flattenHeaders, httpStatusError, parseBody, parseRetryAfter, shapeHttpResult } from './shape-http-response';

const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('parseBody', () => {
  it('parses JSON whatever the content-type, keeps null as null and other text as text', () => {
    expect(parseBody('{"a":1}')).toEqual({ a: 1 });
    expect(parseBody('null')).toBeNull();
    expect(parseBody('[1, 2]')).toEqual([1, 2]);
    expect(parseBody('plain words')).toBe('plain words');
    expect(parseBody('')).toBe('');
    expect(parseBody('{broken')).toBe('{broken');
  });
});

describe('shapeHttpResult', () => {
  it('puts the parsed body under both data and body, elapsed in seconds', () => {
    const result = shapeHttpResult({
      status: 200,
      headers: { a: 'b' },
      url: 'http://h/x',
      elapsedMs: 1234.4,
      text: '{"next_cursor":null}',
    });
    expect(result).toEqual({
      status_code: 200,
      headers: { a: 'b' },
      url: 'http://h/x',
      elapsed: 1.234,
      data: { next_cursor: null },
      body: { next_cursor: null },
    });
  });
});

describe('flattenHeaders', () => {
  it('lower-cases names, joins repeated values and drops undefined ones', () => {
    expect(flattenHeaders({ 'Content-Type': 'text/plain', 'set-cookie': ['a=1', 'b=2'], gone: undefined })).toEqual({
      'content-type': 'text/plain',
      'set-cookie': 'a=1, b=2',
    });
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP-dates (never negative)', () => {
    expect(parseRetryAfter('2', NOW)).toBe(2000);
    expect(parseRetryAfter(' 1.5 ', NOW)).toBe(1500);
    expect(parseRetryAfter('Sun, 01 Jun 2025 12:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Sun, 01 Jun 2025 11:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('httpStatusError', () => {
  const result = (status: number, headers: Record<string, string> = {}, text = '{"detail":"x"}') =>
    shapeHttpResult({ status, headers, url: 'https://api/v1/items?key=secret', elapsedMs: 5, text });

  it('classifies the status and carries the envelope as data', () => {
    const err = httpStatusError(result(404), 'GET', 'Not Found', NOW);
    expect(err.info).toEqual({
      kind: 'not_found',
      retryable: false,
      status: 404,
      status_code: 404,
      code: 'HTTP_404',
      message: 'http GET https://api/v1/items returned 404 Not Found: {"detail":"x"}',
    });
    expect(err.data).toMatchObject({ status_code: 404, data: { detail: 'x' } });
  });

  it('adds retry_after_ms from Retry-After', () => {
    expect(httpStatusError(result(429, { 'retry-after': '3' }), 'GET', '', NOW).info).toMatchObject({
      kind: 'rate_limit',
      retryable: true,
      retry_after_ms: 3000,
    });
    expect(httpStatusError(result(503, { 'retry-after': 'Sun, 01 Jun 2025 12:01:00 GMT' }), 'GET', '', NOW).info.retry_after_ms).toBe(
      60_000,
    );
  });

  it('cuts a long body in the message', () => {
    const err = httpStatusError(result(500, {}, 'x'.repeat(1000)), 'POST', 'Internal Server Error', NOW);
    expect(err.info.message.length).toBeLessThan(300);
    expect(err.info).toMatchObject({ kind: 'server_error', retryable: true });
  });
});
