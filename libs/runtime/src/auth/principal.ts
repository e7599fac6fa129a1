import type { ApiKeyRole, TenantScope } from '@noetl/storage';

export type Role = ApiKeyRole;

/**
 * Who is calling: the tenant and organization every query of the request is
 * scoped by (DESIGN.md invariant 7), taken from the key or token, never from
 * the process; the caller's role; and a name for the audit trail.
 */
export interface Principal {
  scope: TenantScope;
  role: Role;
  /** `key:<key id>`, `token:<subject>`, or `local` (auth off, or the process itself). */
  subject: string;
}

/**
 * What a route asks of its caller: a role (each allows the ones below it:
 * viewer < developer < operator < admin; `worker` is apart, for the control
 * plane only), `authenticated` (any valid caller, workers included), or `public`.
 */
export type Access = Role | 'authenticated' | 'public';

const RANK: Record<Exclude<Role, 'worker'>, number> = { viewer: 1, developer: 2, operator: 3, admin: 4 };

/** Whether a caller of `role` may use a route that asks for `access`. */
export function allows(role: Role, access: Access): boolean {
  if (access === 'public' || access === 'authenticated') return true;
  if (access === 'worker' || role === 'worker') return role === access;
  return RANK[role] >= RANK[access];
}

/** The subject of the process itself: auth off, `noetl run`. */
export const LOCAL_SUBJECT = 'local';

/** The process itself (auth off, `noetl run`): its own tenant, every permission. */
export function localPrincipal(scope: TenantScope): Principal {
  return { scope, role: 'admin', subject: LOCAL_SUBJECT };
}
