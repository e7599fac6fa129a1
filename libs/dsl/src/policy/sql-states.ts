/**
 * SQLSTATE classes of a user step's database errors (a `postgres` tool, a
 * sink), as the error policies see them: what `classifyError` and the
 * postgres tool both classify by. The runtime's own database errors are
 * storage's (db-errors.ts).
 */
export const SQLSTATE_CODE = /^[0-9A-Z]{5}$/;

/** Class 08: the connection failed or was lost. */
export const isConnectionException = (sqlstate: string): boolean => sqlstate.startsWith('08');
/** The server is shutting down, restarting or full (57P01-03 admin/crash shutdown and cannot connect now, 53300 too many connections). */
export const isServerGoingAway = (sqlstate: string): boolean => ['57P01', '57P02', '57P03', '53300'].includes(sqlstate);
export const isSerializationFailureState = (sqlstate: string): boolean => sqlstate === '40001';
export const isDeadlockState = (sqlstate: string): boolean => sqlstate === '40P01';
/** 57014: a statement cancelled (its statement_timeout). */
export const isQueryCanceled = (sqlstate: string): boolean => sqlstate === '57014';
/** Class 28: the login was refused. */
export const isAuthFailure = (sqlstate: string): boolean => sqlstate.startsWith('28');

/** Worth running again as is: the connection or the server went away, or the transaction lost a race. */
export const isRetryableSqlState = (sqlstate: string): boolean =>
  isConnectionException(sqlstate) || isServerGoingAway(sqlstate) || isSerializationFailureState(sqlstate) || isDeadlockState(sqlstate);
