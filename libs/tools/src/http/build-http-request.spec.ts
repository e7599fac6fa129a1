import { CallError } from '@noetl/dsl';
import { buildHttpRequest, safeUrl, withDefaultHeaders } from './build-http-request';

function configError(fn: () => unknown): CallError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CallError) return err;
  }
  throw new Error('expected a CallError');
}

describe('buildHttpRequest', () => {
  it('defaults to GET with a 30 s timeout and no body', () => {
    expect(buildHttpRequest({ url: 'http://h/x' })).toEqual({
      method: 'GET',
      url: 'http://h/x',
      headers: {},
      timeoutMs: 30_000,
      timeoutText: '30s',
    });
  });

  it('accepts endpoint as url, a lower-case method and a numeric-string timeout', () => {
    expect(buildHttpRequest({ endpoint: 'https://h/y', method: 'post', timeout: '8' })).toMatchObject({
      method: 'POST',
      url: 'https://h/y',
      timeoutMs: 8_000,
    });
    // Issue 15 defect 8: no step holds a worker longer than the operator's ceiling.
    expect(buildHttpRequest({ url: 'http://h/x', timeout: 86_400 }, 30, 300)).toMatchObject({
      timeoutMs: 300_000,
      timeoutText: '300s (timeout 86400s capped at the 300s ceiling)',
    });
  });

  it('renders params into the query string: scalars as text, lists repeat the key, nulls are skipped', () => {
    const plan = buildHttpRequest({
      url: 'http://h/p?keep=1',
      params: { page: 2, q: 'a b&c', on: false, tags: ['x', 'y'], none: null, obj: { a: 1 } },
    });
    expect(plan.url).toBe('http://h/p?keep=1&page=2&q=a+b%26c&on=false&tags=x&tags=y&obj=%7B%22a%22%3A1%7D');
  });

  it('sends objects as JSON with a content-type unless one is given', () => {
    expect(buildHttpRequest({ url: 'http://h', method: 'POST', body: { a: [1] } })).toMatchObject({
      body: '{"a":[1]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(buildHttpRequest({ url: 'http://h', payload: [1, 2], headers: { 'Content-Type': 'application/vnd+json' } })).toMatchObject({
      body: '[1,2]',
      headers: { 'Content-Type': 'application/vnd+json' },
    });
  });

  it('sends a string body as is, but JSON-encodes anything under json', () => {
    expect(buildHttpRequest({ url: 'http://h', data: 'raw text' })).toEqual(expect.objectContaining({ body: 'raw text', headers: {} }));
    expect(buildHttpRequest({ url: 'http://h', json: 'text' })).toMatchObject({
      body: '"text"',
      headers: { 'content-type': 'application/json' },
    });
  });

  it('form-encodes an object body when the content-type says so', () => {
    const plan = buildHttpRequest({
      url: 'http://h',
      data: { a: 1, b: ['x', 'y'] },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(plan.body).toBe('a=1&b=x&b=y');
  });

  it('stringifies header values and drops null ones', () => {
    expect(buildHttpRequest({ url: 'http://h', headers: { 'X-N': 5, 'X-Null': null, 'X-S': 's' } }).headers).toEqual({
      'X-N': '5',
      'X-S': 's',
    });
  });

  it('rejects a missing or non-http url, a bad timeout and a bad method', () => {
    expect(configError(() => buildHttpRequest({})).info).toMatchObject({ kind: 'internal', code: 'INVALID_CONFIG' });
    expect(configError(() => buildHttpRequest({ url: 'ftp://h/x' })).info.code).toBe('INVALID_CONFIG');
    expect(configError(() => buildHttpRequest({ url: 'not a url' })).info.code).toBe('INVALID_CONFIG');
    expect(configError(() => buildHttpRequest({ url: 'http://h', timeout: 0 })).info.code).toBe('INVALID_CONFIG');
    expect(configError(() => buildHttpRequest({ url: 'http://h', method: 'GET /' })).info.code).toBe('INVALID_CONFIG');
  });
});

describe('withDefaultHeaders', () => {
  it('adds auth headers only where the config set none (case-insensitively)', () => {
    expect(withDefaultHeaders({ authorization: 'mine' }, { Authorization: 'Bearer x', 'X-K': 'k' })).toEqual({
      authorization: 'mine',
      'X-K': 'k',
    });
  });
});

describe('safeUrl', () => {
  it('drops credentials and the query string', () => {
    expect(safeUrl('https://user:pw@api.example.com:8443/v1/items?api_key=secret')).toBe('https://api.example.com:8443/v1/items');
  });
});
