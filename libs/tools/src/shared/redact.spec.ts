import { CallError } from '@noetl/dsl';
import { redact, redactCallError, secretValues } from './redact';

describe('secretValues', () => {
  it('collects secret-looking fields and header values, not hosts or user names', () => {
    expect(secretValues({ db_host: 'db.local', db_user: 'postgres', db_password: 'hunter22', token: 'tok-123', headers: { 'X-Api-Key': 'k-12345' }, ok: 'x' })).toEqual([
      'hunter22',
      'tok-123',
      'k-12345',
    ]);
  });
});

describe('redact', () => {
  it('replaces secrets and their URL-encoded forms, longest first', () => {
    expect(redact('auth tok-123 and tok-1234 in ?t=ab%2Fcd', ['tok-123', 'tok-1234', 'ab/cd'])).toBe('auth *** and *** in ?t=***');
    expect(redact('short ab', ['ab'])).toBe('short ab');
  });
});

describe('redactCallError', () => {
  it('keeps the classification and data, cleans the message', () => {
    const err = new CallError({ kind: 'auth', message: 'bad token tok-123', retryable: false, status: 401 }, { body: 1 });
    const clean = redactCallError(err, ['tok-123']);
    expect(clean.info).toEqual({ kind: 'auth', message: 'bad token ***', retryable: false, status: 401 });
    expect(clean.data).toEqual({ body: 1 });
    expect(redactCallError(err, [])).toBe(err);
  });
});
