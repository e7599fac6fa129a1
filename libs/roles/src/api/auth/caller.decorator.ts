import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '@noetl/runtime';

/** A request the AuthGuard let through: who is calling. */
export interface AuthenticatedRequest {
  principal?: Principal;
}

/** The principal of the request (set by the AuthGuard): its scope is the tenant every call of the handler serves. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('@Caller() on a route the AuthGuard did not authenticate (a public route has no caller)');
  return principal;
});
