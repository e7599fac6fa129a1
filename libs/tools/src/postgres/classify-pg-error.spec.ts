import { classifyPgError } from './classify-pg-error';

const pgError = (code: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { code, ...extra });

describe('classifyPgError', () => {
  it('reports SQL errors as db with the SQLSTATE, the statement and the detail', () => {
    expect(classifyPgError(pgError('42601', 'syntax error at or near "SELEC"'), 'statement 2 (command_2)')).toEqual({
      kind: 'db',
      code: '42601',
      retryable: false,
      message: 'postgres: statement 2 (command_2) failed [SQLSTATE 42601]: syntax error at or near "SELEC"',
    });
    expect(classifyPgError(pgError('23505', 'duplicate key', { detail: 'Key (id)=(7) already exists.' })).message).toContain(
      'Key (id)=(7)',
    );
  });

  it('retries serialization failures and deadlocks', () => {
    expect(classifyPgError(pgError('40001', 'could not serialize'))).toMatchObject({ kind: 'db', retryable: true });
    expect(classifyPgError(pgError('40P01', 'deadlock detected'))).toMatchObject({ kind: 'db', retryable: true });
  });

  it('reports connection exceptions, shutdowns and too many connections as retryable connection errors', () => {
    for (const code of ['08006', '57P01', '53300'])
      expect(classifyPgError(pgError(code, 'x'))).toMatchObject({ kind: 'connection', retryable: true, code });
  });

  it('reports authentication failures as auth and a cancelled statement as timeout', () => {
    expect(classifyPgError(pgError('28P01', 'password authentication failed for user "u"'))).toMatchObject({
      kind: 'auth',
      retryable: false,
    });
    expect(classifyPgError(pgError('57014', 'canceling statement due to statement timeout'))).toMatchObject({
      kind: 'timeout',
      retryable: true,
    });
  });

  it('reports socket errors and pool timeouts as retryable connection errors', () => {
    expect(classifyPgError(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'))).toMatchObject({
      kind: 'connection',
      retryable: true,
      code: 'ECONNREFUSED',
    });
    expect(classifyPgError(new Error('Connection terminated unexpectedly'))).toMatchObject({ kind: 'connection', retryable: true });
    expect(classifyPgError(new Error('timeout exceeded when trying to connect'))).toMatchObject({ kind: 'connection' });
  });

  it('reports anything else as a non-retryable db error', () => {
    expect(classifyPgError(new Error('odd'))).toMatchObject({ kind: 'db', retryable: false, message: 'postgres: odd' });
  });
});
