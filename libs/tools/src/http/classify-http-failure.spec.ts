import { classifyHttpFailure, type HttpFailureContext } from './classify-http-failure';

const at: HttpFailureContext = { method: 'GET', url: 'http://h:1/x?k=s', timeoutText: '8s', cancelled: false, timedOut: false };
const sysError = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('classifyHttpFailure', () => {
  it('reports cancellation first, whatever the error', () => {
    expect(classifyHttpFailure(sysError('ECONNRESET'), { ...at, cancelled: true, timedOut: true })).toMatchObject({
      kind: 'cancelled',
      retryable: false,
    });
  });

  it('reports the request timeout as a retryable timeout saying "timed out"', () => {
    const info = classifyHttpFailure(new DOMException('aborted', 'TimeoutError'), { ...at, timedOut: true });
    expect(info).toMatchObject({ kind: 'timeout', retryable: true, message: 'http GET http://h:1/x timed out after 8s' });
    expect(classifyHttpFailure(sysError('UND_ERR_HEADERS_TIMEOUT'), at).kind).toBe('timeout');
  });

  it('reports refused, reset and DNS failures as retryable connection errors', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET']) {
      expect(classifyHttpFailure(sysError(code), at)).toMatchObject({ kind: 'connection', retryable: true, code });
    }
    expect(classifyHttpFailure(Object.assign(new TypeError('fetch failed'), { cause: sysError('ECONNREFUSED') }), at).kind).toBe(
      'connection',
    );
  });

  it('reports anything else as a non-retryable internal error', () => {
    expect(classifyHttpFailure(new Error('weird'), at)).toMatchObject({ kind: 'internal', retryable: false });
  });
});
