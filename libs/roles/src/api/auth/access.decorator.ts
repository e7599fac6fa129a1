import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Access as RuntimeAccess } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';

/** What a route asks of its caller; `metrics`: open, or any valid key when NOETL_METRICS_AUTH=key. */
export type RouteAccess = RuntimeAccess | 'metrics';

export const ACCESS_METADATA = 'noetl:access';

/**
 * Declares who may call a route: on a controller, for each of its handlers,
 * or on a handler, to override the controller's. The AuthGuard enforces it,
 * and a route without one is refused. On a guarded controller Swagger shows
 * the bearer scheme and the 401/403 answers of its routes (once: a handler's
 * override changes the access, not the scheme).
 */
export function Access(access: RouteAccess): MethodDecorator & ClassDecorator {
  const metadata = applyDecorators(SetMetadata(ACCESS_METADATA, access));
  const documented = applyDecorators(
    SetMetadata(ACCESS_METADATA, access),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'No valid API key or token (unauthenticated)' }),
    ApiForbiddenResponse({ type: ApiErrorDto, description: "The caller's role may not (forbidden)" }),
  );
  return (target: object, key?: string | symbol, descriptor?: PropertyDescriptor): void => {
    (key === undefined && access !== 'public' ? documented : metadata)(target, key, descriptor);
  };
}
