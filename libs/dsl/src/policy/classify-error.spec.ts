import { CallError, httpCallError } from '../model';
import { classifyError } from './classify-error';

const withProps = (message: string, props: Record<string, unknown>): Error => Object.assign(new Error(message), props);

describe('classifyError', () => {
  it('keeps the info of a CallError', () => {
    const info = httpCallError(503, 'HTTP 503');
    expect(classifyError(new CallError(info, { body: 1 }))).toEqual(info);
  });

  it.each<[string, unknown, Record<string, unknown>]>([
    [
      'a TimeoutError',
      Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }),
      { kind: 'timeout', retryable: true, code: 'TimeoutError' },
    ],
    ['ETIMEDOUT', withProps('connect ETIMEDOUT', { code: 'ETIMEDOUT' }), { kind: 'timeout', retryable: true, code: 'ETIMEDOUT' }],
    [
      'an undici headers timeout in cause',
      withProps('fetch failed', { cause: { code: 'UND_ERR_HEADERS_TIMEOUT' } }),
      { kind: 'timeout', retryable: true, code: 'UND_ERR_HEADERS_TIMEOUT' },
    ],
    [
      'ECONNREFUSED',
      withProps('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }),
      { kind: 'connection', retryable: true, code: 'ECONNREFUSED' },
    ],
    [
      'ENOTFOUND in cause',
      withProps('fetch failed', { cause: { code: 'ENOTFOUND' } }),
      { kind: 'connection', retryable: true, code: 'ENOTFOUND' },
    ],
    [
      'an AbortError',
      Object.assign(new Error('This operation was aborted'), { name: 'AbortError' }),
      { kind: 'cancelled', retryable: false, code: 'AbortError' },
    ],
    [
      'a pg syntax error',
      withProps('syntax error at or near "SELEC"', { name: 'DatabaseError', code: '42601', severity: 'ERROR' }),
      { kind: 'db', retryable: false, code: '42601' },
    ],
    [
      'a pg serialization failure',
      withProps('could not serialize access', { code: '40001', severity: 'ERROR' }),
      { kind: 'db', retryable: true, code: '40001' },
    ],
    [
      'a pg connection exception',
      withProps('connection failure', { code: '08006', sqlState: '08006' }),
      { kind: 'db', retryable: true, code: '08006' },
    ],
    [
      'a five-character code that is not a database error',
      withProps('odd', { code: 'ABCDE' }),
      { kind: 'internal', retryable: false, code: 'Error' },
    ],
    [
      'a TypeError',
      new TypeError('x is not a function'),
      { kind: 'internal', retryable: false, code: 'TypeError', message: 'x is not a function' },
    ],
    ['a thrown string', 'boom', { kind: 'internal', retryable: false, message: 'boom' }],
    ['a thrown number', 42, { kind: 'internal', retryable: false, message: 'thrown 42' }],
    ['undefined', undefined, { kind: 'internal', retryable: false, message: 'thrown undefined' }],
    ['null', null, { kind: 'internal', retryable: false, message: 'thrown null' }],
    ['a plain object with a message', { message: 'nope' }, { kind: 'internal', retryable: false, message: 'nope' }],
    ['a plain object without a message', { reason: 1 }, { kind: 'internal', retryable: false, message: 'thrown object' }],
    ['a thrown list', [1], { kind: 'internal', retryable: false, message: 'thrown object' }],
    ['a thrown function', () => 1, { kind: 'internal', retryable: false, message: 'thrown function' }],
    ['an Error without a message', new RangeError(), { kind: 'internal', retryable: false, message: 'RangeError', code: 'RangeError' }],
  ])('classifies %s', (_name, thrown, expected) => {
    expect(classifyError(thrown)).toMatchObject(expected);
  });

  it('uses the fallback kind for unknown errors', () => {
    expect(classifyError(new Error('NameError: x'), 'code')).toEqual({
      kind: 'code',
      message: 'NameError: x',
      retryable: false,
      code: 'Error',
    });
  });

  it('never includes a stack trace and truncates long messages', () => {
    const info = classifyError(new Error('x'.repeat(5000)));
    expect(JSON.stringify(info)).not.toContain('at ');
    expect(info).not.toHaveProperty('stack');
    expect(info.message).toHaveLength(2003);
  });

  it('ignores an empty name or code', () => {
    expect(classifyError({ name: '', code: '', message: 'm' })).toEqual({ kind: 'internal', message: 'm', retryable: false });
  });
});
