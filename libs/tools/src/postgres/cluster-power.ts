import type { RowsOf } from './database-identity';

/**
 * What a step's role could do to another database of the same cluster, as
 * its own server says (issue 25 item 2): a superuser may switch the ledger's
 * triggers off or read every table; `pg_execute_server_program` runs
 * `COPY ... FROM PROGRAM 'psql ...'`; the server-files roles read and write
 * the data directory; CREATEROLE grants itself those roles; a replication
 * role streams the WAL; dblink or postgres_fdw (installed and usable, or
 * creatable: they are untrusted extensions, so only where marked trusted and
 * the role has CREATE on its database) open a session on the ledger; and any
 * privilege granted on the ledger's database itself (PUBLIC's default
 * CONNECT aside, which gives nothing in schema `noetl`) or owning it.
 * Each true column is a reason to refuse the connection.
 */
const POWER_SQL = `
SELECT r.rolname AS role,
       r.rolsuper AS superuser,
       pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER') AS execute_server_program,
       pg_has_role(current_user, 'pg_read_server_files', 'MEMBER') OR pg_has_role(current_user, 'pg_write_server_files', 'MEMBER') AS server_files,
       r.rolcreaterole AS createrole,
       r.rolreplication AS replication,
       EXISTS (SELECT FROM pg_proc p WHERE p.proname IN ('dblink_connect', 'dblink_connect_u', 'dblink', 'dblink_exec')
                AND has_function_privilege(p.oid, 'EXECUTE'))
         OR EXISTS (SELECT FROM pg_foreign_data_wrapper w WHERE w.fdwname = 'postgres_fdw'
                     AND has_foreign_data_wrapper_privilege(w.oid, 'USAGE')) AS remote_sessions,
       has_database_privilege(current_database(), 'CREATE')
         AND EXISTS (SELECT FROM pg_available_extension_versions v WHERE v.name IN ('dblink', 'postgres_fdw') AND v.trusted) AS create_remote_sessions,
       EXISTS (SELECT FROM pg_database d WHERE d.datname = $1
                AND (pg_has_role(current_user, d.datdba, 'MEMBER')
                     OR EXISTS (SELECT FROM aclexplode(d.datacl) a WHERE a.grantee <> 0 AND pg_has_role(current_user, a.grantee, 'MEMBER')))) AS ledger_privilege
  FROM pg_roles r WHERE r.rolname = current_user`;

const REASONS: Record<string, string> = {
  superuser: 'it is a superuser',
  execute_server_program: 'it may run server programs (pg_execute_server_program)',
  server_files: "it may read or write the server's files (pg_read_server_files, pg_write_server_files)",
  createrole: 'it may create and grant roles (CREATEROLE)',
  replication: 'it is a replication role',
  remote_sessions: 'it may open sessions on other databases (dblink or postgres_fdw)',
  create_remote_sessions: 'it may create dblink or postgres_fdw in its database',
  ledger_privilege: "it holds a privilege on the ledger's database",
};

/** The connection's role, and why it has power over the cluster whose ledger database is `ledgerName` ([] when it has none). */
export async function clusterPowers(rowsOf: RowsOf, ledgerName: string): Promise<{ role: string; powers: string[] }> {
  const [row] = await rowsOf(POWER_SQL, [ledgerName]);
  if (!row) throw new Error('the server did not say who this connection is');
  const powers = Object.entries(REASONS)
    .filter(([column]) => row[column] === true)
    .map(([, reason]) => reason);
  return { role: String(row.role), powers };
}
