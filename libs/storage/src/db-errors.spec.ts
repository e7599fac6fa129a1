import { QueryFailedError } from 'typeorm';
import {
  isConnectionLoss,
  isDeadlock,
  isLockNotAvailable,
  isPoolWaitTimeout,
  isQueryTimeout,
  isSerializationFailure,
  isUniqueViolation,
  sqlStateOf,
} from './db-errors';

const pgError = (code: string): Error & { code: string } => Object.assign(new Error(`pg ${code}`), { code });

describe('SQLSTATE predicates', () => {
  it.each([
    ['23505', isUniqueViolation],
    ['40001', isSerializationFailure],
    ['40P01', isDeadlock],
    ['55P03', isLockNotAvailable],
  ])('recognises %s on a driver error and on TypeORM QueryFailedError', (code, predicate) => {
    expect(predicate(pgError(code))).toBe(true);
    expect(predicate(new QueryFailedError('SELECT 1', [], pgError(code)))).toBe(true);
  });

  it('says no for other states and for errors that are not from the database', () => {
    expect(isUniqueViolation(pgError('23503'))).toBe(false);
    expect(isDeadlock(Object.assign(new Error('socket'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isSerializationFailure(undefined)).toBe(false);
    expect(isLockNotAvailable('55P03')).toBe(false);
    expect(sqlStateOf(Object.assign(new Error('pipe'), { code: 'EPIPE' }))).toBeUndefined();
    expect(sqlStateOf(pgError('XX000'))).toBe('XX000');
  });
});

describe('isQueryTimeout', () => {
  it("recognises pg's query_timeout error bare, wrapped by TypeORM and as a cause", () => {
    const timeout = new Error('Query read timeout');
    expect(isQueryTimeout(timeout)).toBe(true);
    expect(isQueryTimeout(new QueryFailedError('SELECT 1', [], timeout))).toBe(true);
    expect(isQueryTimeout(new Error('planning failed', { cause: timeout }))).toBe(true);
  });

  it('says no for other errors, a lock timeout included', () => {
    expect(isQueryTimeout(pgError('55P03'))).toBe(false);
    expect(isQueryTimeout(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isQueryTimeout('Query read timeout')).toBe(false);
    expect(isQueryTimeout(undefined)).toBe(false);
  });
});

describe('isConnectionLoss (issue 29: what is destroyed rather than pooled)', () => {
  it.each(['25006', '57P01', '57P02', '57P03', '08006', '08003'])('recognises SQLSTATE %s, also under QueryFailedError', (code) => {
    expect(isConnectionLoss(pgError(code))).toBe(true);
    expect(isConnectionLoss(new QueryFailedError('COMMIT', [], pgError(code)))).toBe(true);
  });

  it.each(['ECONNRESET', 'EPIPE', 'ECONNREFUSED'])('recognises the socket error %s', (code) => {
    expect(isConnectionLoss(Object.assign(new Error(`read ${code}`), { code }))).toBe(true);
  });

  it('counts a statement unanswered past the query timeout as a lost connection', () => {
    expect(isConnectionLoss(new QueryFailedError('COMMIT', [], new Error('Query read timeout')))).toBe(true);
  });

  it("recognises pg's own messages for a connection that ended", () => {
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isConnectionLoss(new QueryFailedError('SELECT 1', [], new Error('Client has encountered a connection error and is not queryable'))),
    ).toBe(true);
  });

  it('says no for errors of the statement (a unique violation, a deadlock, a lock timeout) and for others', () => {
    for (const code of ['23505', '40P01', '55P03', '42601']) expect(isConnectionLoss(pgError(code))).toBe(false);
    expect(isConnectionLoss(new Error('boom'))).toBe(false);
    expect(isConnectionLoss(undefined)).toBe(false);
  });
});

describe('isPoolWaitTimeout', () => {
  it("recognises pg-pool's checkout that waited past its connection timeout, and nothing else", () => {
    expect(isPoolWaitTimeout(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isPoolWaitTimeout(new Error('Connection terminated due to connection timeout'))).toBe(false);
    expect(isPoolWaitTimeout(new Error('Query read timeout'))).toBe(false);
    expect(isPoolWaitTimeout(undefined)).toBe(false);
  });
});
