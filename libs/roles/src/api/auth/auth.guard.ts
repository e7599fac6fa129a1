import { Inject, Injectable, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { NOETL_CONFIG, type NoetlConfig } from '@noetl/platform';
import { allows, Authenticator, keyIdOf, localPrincipal, RuntimeError, type Access } from '@noetl/runtime';
import type { Request } from 'express';
import { ACCESS_METADATA, type RouteAccess } from './access.decorator';
import type { AuthenticatedRequest } from './caller.decorator';

/**
 * Every HTTP route's gate (issue 11): the route's declared access decides;
 * a route that declares none is refused (fail closed). The caller is
 * authenticated by its `Authorization: Bearer` key or token, and its
 * principal (tenant, organization, role) is put on the request for
 * `@Caller()`. A refusal is 401 or 403 with the one error body, and one log
 * line that names the route and the key id, never the presented secret.
 * With NOETL_AUTH=off every caller is the process's own tenant, as admin.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly logger = new Logger('auth');

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    @Inject(NOETL_CONFIG) private readonly config: NoetlConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // Message handlers (NATS) are between the deployment's own services.
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    const declared = this.reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_METADATA, [context.getHandler(), context.getClass()]);
    if (declared === undefined)
      throw new RuntimeError('forbidden', `${request.method} ${request.path} declares no access, so no one may call it`);
    const access: Access = declared === 'metrics' ? (this.config.auth.metrics === 'key' ? 'authenticated' : 'public') : declared;
    if (!this.config.auth.enabled) {
      request.principal = localPrincipal(this.config.tenancy);
      return true;
    }
    if (access === 'public') return true;
    const verdict = await this.authenticator.authenticate(request.headers.authorization);
    if ('refused' in verdict) {
      this.refuse(request, 401, verdict.refused);
      throw new RuntimeError('unauthenticated', verdict.refused);
    }
    const { principal } = verdict;
    if (!allows(principal.role, access)) {
      const message = `the ${principal.role} role may not ${request.method} ${request.route?.path ?? request.path}; it needs ${access}`;
      this.refuse(request, 403, message, principal.subject);
      throw new RuntimeError('forbidden', message);
    }
    request.principal = principal;
    return true;
  }

  private refuse(request: Request, status: number, reason: string, subject?: string): void {
    const presented = /^Bearer\s+(\S+)/i.exec(request.headers.authorization ?? '')?.[1];
    const key = presented ? keyIdOf(presented) : undefined;
    const who = subject ?? (key ? `key:${key}` : 'no valid key');
    this.logger.warn(`${status} ${request.method} ${request.route?.path ?? request.path} (${who}): ${reason}`);
  }
}
