import type { Queryable } from './database';

/**
 * Why the connection's role could change the ledger behind its append-only
 * triggers, or undefined when it cannot (issue 25 item 1): a superuser may
 * `SET session_replication_role = replica`, and so may a role granted that
 * parameter (PostgreSQL 15+); the owner of `noetl.event` may disable its
 * triggers. The runtime needs none of this: it should connect as the
 * runtime role (README "Database roles").
 */
export async function ledgerBypass(q: Queryable): Promise<string | undefined> {
  const [role] = await q.query<{ name: string; superuser: boolean; owns_ledger: boolean }>(
    `SELECT r.rolname AS name, r.rolsuper AS superuser, pg_has_role(current_user, c.relowner, 'USAGE') AS owns_ledger
       FROM pg_roles r, pg_class c
      WHERE r.rolname = current_user AND c.oid = 'noetl.event'::regclass`,
  );
  if (!role) return undefined;
  if (role.superuser)
    return `its role "${role.name}" is a superuser, which may switch the append-only triggers off (session_replication_role)`;
  if (role.owns_ledger) return `its role "${role.name}" owns noetl.event, and an owner may disable its triggers`;
  const [granted] = await q
    .query<{ may: boolean }>(`SELECT has_parameter_privilege('session_replication_role', 'SET') AS may`)
    // Before PostgreSQL 15 only a superuser may set it, which was asked above.
    .catch(() => [{ may: false }]);
  return granted?.may ? `its role "${role.name}" may set session_replication_role, which switches the append-only triggers off` : undefined;
}
