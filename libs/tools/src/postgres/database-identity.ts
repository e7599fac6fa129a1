import { CallError } from '@noetl/dsl';

/**
 * Which database a connection reached, as the server itself says, so that no spelling of a
 * DSN (host alias, IP, port written or implied, socket, proxy) can hide that two connections
 * reach the same database. `cluster` is the cluster's system identifier when the role may read
 * it (`pg_control_system()`), `startedAt` the postmaster's start time, `oid` the database's.
 */
export interface DatabaseIdentity {
  cluster: string | null;
  startedAt: string;
  oid: string;
  name: string;
}

/** Runs one statement and gives its rows (a pg client, the runtime's own pool, ...). */
export type RowsOf = (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

const IDENTITY_SQL =
  'SELECT pg_postmaster_start_time()::text AS started_at, d.oid::text AS oid, d.datname AS name FROM pg_database d WHERE d.datname = current_database()';
const CLUSTER_SQL = 'SELECT system_identifier::text AS cluster FROM pg_control_system()';

export async function readDatabaseIdentity(rowsOf: RowsOf): Promise<DatabaseIdentity> {
  const [row] = await rowsOf(IDENTITY_SQL);
  if (!row) throw new Error('the server did not say which database this is');
  // Readable by default since PostgreSQL 10; a role it was revoked from falls back to the start time.
  const cluster = await rowsOf(CLUSTER_SQL).then(
    ([r]) => (r && typeof r.cluster === 'string' ? r.cluster : null),
    () => null,
  );
  return { cluster, startedAt: String(row.started_at), oid: String(row.oid), name: String(row.name) };
}

/** Same cluster: by system identifier when both sides read it, else by the postmaster's start time. */
export function sameCluster(a: DatabaseIdentity, b: DatabaseIdentity): boolean {
  return a.cluster !== null && b.cluster !== null ? a.cluster === b.cluster : a.startedAt === b.startedAt;
}

/** Same cluster and same database. */
export function sameDatabase(a: DatabaseIdentity, b: DatabaseIdentity): boolean {
  return a.oid === b.oid && a.name === b.name && sameCluster(a, b);
}

/** A database the tool must never run statements on: the runtime's own ledger, unless allowed. */
export interface ProtectedDatabase {
  identity(): Promise<DatabaseIdentity>;
  /** Why, for the step's error: e.g. `it is the runtime's ledger (NOETL_TOOLS_LEDGER_ACCESS=allow permits it)`. */
  reason: string;
  /**
   * Also refuse its cluster to a role with power over it (`clusterPowers`): a superuser reaches
   * the ledger from any database of the cluster (dblink, COPY FROM PROGRAM). Ordinary roles pass.
   */
  cluster?: { hint: string };
}

export const PROTECTED_DATABASE = 'PROTECTED_DATABASE';

/** A role with power over the ledger's cluster: `powers` says which. */
export function protectedClusterError(role: string, powers: string[], hint: string): CallError {
  return new CallError({
    kind: 'auth',
    message: `postgres: refusing to connect as role "${role}" to the cluster of this runtime's ledger: ${powers.join('; ')} (${hint})`,
    retryable: false,
    code: PROTECTED_DATABASE,
  });
}

export function protectedDatabaseError(name: string, reason: string): CallError {
  return new CallError({
    kind: 'auth',
    message: `postgres: refusing to connect to database "${name}": ${reason}`,
    retryable: false,
    code: PROTECTED_DATABASE,
  });
}
