import { connectClient } from './multi-host';

/**
 * Whether the runtime's pool should work as `role` rather than as the login
 * of `url` (issue 25 item 1): yes when the login is someone else who may
 * become it (a superuser, the embedded server's, a member of it); no when the
 * login already is that role, when the role does not exist (a migrating login
 * that could not make it), or when the login may not become it (a login of
 * its own, such as compose's `noetl_app`). Asked once at boot, on a
 * connection of its own, by trying the `SET ROLE` the pool would rely on.
 */
export async function runtimeRoleFor(url: string, role: string): Promise<string | undefined> {
  const client = await connectClient(url, { application_name: 'noetl-role-check' });
  try {
    const { rows } = await client.query<{ login: string; present: boolean }>(
      'SELECT current_user AS login, EXISTS (SELECT FROM pg_roles WHERE rolname = $1) AS present',
      [role],
    );
    const [found] = rows;
    if (!found?.present || found.login === role) return undefined;
    return await client.query(`SET ROLE ${client.escapeIdentifier(role)}`).then(
      () => role,
      () => undefined,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
