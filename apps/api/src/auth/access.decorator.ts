import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Access as RuntimeAccess } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';

/** What a route asks of its caller; `metrics`: open, or any valid key when NOETL_METRICS_AUTH=key. */
export type RouteAccess = RuntimeAccess | 'metrics';

export const ACCESS_METADATA = 'noetl:access';

/**
 * Declares who may call a route (on a controller, or a handler to override
 * it); the AuthGuard enforces it, and a route without one is refused.
 * Swagger shows the bearer scheme and the 401/403 answers of guarded routes.
 */
export function Access(access: RouteAccess): MethodDecorator & ClassDecorator {
  const guarded =
    access === 'public'
      ? []
      : [
          ApiBearerAuth(),
          ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'No valid API key or token (unauthenticated)' }),
          ApiForbiddenResponse({ type: ApiErrorDto, description: `The caller's role may not (forbidden); this route needs ${access}` }),
        ];
  return applyDecorators(SetMetadata(ACCESS_METADATA, access), ...guarded);
}
