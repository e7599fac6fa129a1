import type { TenantScope } from '@noetl/storage';

/**
 * One service of every tenant's runtime: `of(scope)` is the caller's
 * tenant's. What a controller serving many tenants injects, one per
 * service it uses (the tenant comes from the request's principal).
 */
export class PerTenant<T> {
  constructor(private readonly pick: (scope: TenantScope) => T) {}

  of(scope: TenantScope): T {
    return this.pick(scope);
  }
}
