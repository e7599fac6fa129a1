/**
 * PostgreSQL errors classified by SQLSTATE (STYLE.md "Errors"). TypeORM wraps
 * driver errors in `QueryFailedError` and copies `code` onto it; the original
 * sits on `driverError`. Both shapes are read here and nowhere else.
 */
export const SqlState = {
  UniqueViolation: '23505',
  SerializationFailure: '40001',
  DeadlockDetected: '40P01',
  LockNotAvailable: '55P03',
  ObjectInUse: '55006',
  InvalidCatalogName: '3D000',
  DuplicateDatabase: '42P04',
  InsufficientPrivilege: '42501',
  DuplicatePreparedStatement: '42P05',
  ReadOnlyTransaction: '25006',
  /** The guard of a report or claim sent without a read found the command or its stream not as expected (migrations ExpectedReport, ExpectedClaim). */
  NotAsExpected: 'P0N01',
  /** The guard of a start by path sent without a read of the catalog found a newer version (migration ExpectedCatalog). */
  PlaybookNotLatest: 'P0N02',
} as const;

export type SqlStateCode = (typeof SqlState)[keyof typeof SqlState];

// Five characters in a known class; Node's errno codes (EPIPE, EPERM) are not SQLSTATEs.
const SQLSTATE = /^(?:[0-9][0-9A-Z]|F0|HV|P0|XX)[0-9A-Z]{3}$/;

function codeOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('code' in value)) return undefined;
  const code = (value as { code: unknown }).code;
  return typeof code === 'string' && SQLSTATE.test(code) ? code : undefined;
}

/** The SQLSTATE of a database error, or undefined for anything else. */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'driverError' in error) {
    const fromDriver = codeOf((error as { driverError: unknown }).driverError);
    if (fromDriver) return fromDriver;
  }
  return codeOf(error);
}

export const isUniqueViolation = (error: unknown): boolean => sqlStateOf(error) === SqlState.UniqueViolation;
export const isSerializationFailure = (error: unknown): boolean => sqlStateOf(error) === SqlState.SerializationFailure;
export const isDeadlock = (error: unknown): boolean => sqlStateOf(error) === SqlState.DeadlockDetected;
export const isLockNotAvailable = (error: unknown): boolean => sqlStateOf(error) === SqlState.LockNotAvailable;
/** Deadlocks and serialization failures: the whole transaction may be retried as is. */
export const isRetryableTransactionError = (error: unknown): boolean => isDeadlock(error) || isSerializationFailure(error);

/** pg's message for a statement its connection did not answer within `query_timeout`. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

/**
 * A statement the server did not answer within the pool's query timeout
 * (`NOETL_DB_QUERY_TIMEOUT_MS`): pg's error, bare or wrapped by TypeORM
 * (`driverError`) or by a caller (`cause`). Its connection may never answer
 * again (a partition that swallows packets), so it is closed, not reused.
 */
export function isQueryTimeout(error: unknown): boolean {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    if (current instanceof Error && current.message === QUERY_READ_TIMEOUT) return true;
    current = 'driverError' in current ? current.driverError : 'cause' in current ? current.cause : undefined;
  }
  return false;
}

/** pg-pool's message for a checkout that waited past the pool's connection timeout. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/**
 * A checkout that found no free connection of the pool within its
 * connection timeout: every connection was busy (a burst of requests) and
 * none could be added. Nothing ran; the same request can succeed shortly.
 */
export function isPoolWaitTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === POOL_WAIT_TIMEOUT;
}

/**
 * The session is gone or cannot write (issue 29): the server shut down or was
 * promoted (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
 * cannot_connect_now), the session is read-only (25006: a standby, or a
 * primary that became one), or a connection exception (class 08).
 */
const SESSION_LOST_SQLSTATES = new Set(['57P01', '57P02', '57P03', '25006']);
/** Node's socket errors of a connection cut under a session. */
const SOCKET_ERRNOS = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** pg's own errors for a connection that ended under it (they carry no code). */
const LOST_MESSAGES = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout expired/i;

function errnoOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('code' in value)) return undefined;
  const code = (value as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether `error` says the connection it came from is no longer one to use:
 * cut, shut down, landed on a read-only server, or silent past the query
 * timeout (`isQueryTimeout`). Such a connection is destroyed, never returned
 * to the pool, and the work is retried on a fresh one (which `MultiHostPool`
 * takes from a writable host).
 */
export function isConnectionLoss(error: unknown): boolean {
  if (isQueryTimeout(error)) return true;
  const state = sqlStateOf(error);
  if (state !== undefined) return SESSION_LOST_SQLSTATES.has(state) || state.startsWith('08');
  const inner =
    typeof error === 'object' && error !== null && 'driverError' in error ? (error as { driverError: unknown }).driverError : error;
  for (const candidate of [error, inner]) {
    const errno = errnoOf(candidate);
    if (errno && SOCKET_ERRNOS.has(errno)) return true;
    if (candidate instanceof Error && LOST_MESSAGES.test(candidate.message)) return true;
  }
  return false;
}
