/** The base of every error libs/storage throws on purpose: a stable string `code` the API edge maps once. */
export abstract class StorageError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Tenant and organization: on every event, payload key and query (DESIGN.md invariant 7). */
export interface TenantScope {
  tenantId: string;
  organizationId: string;
}

/**
 * What a tenant or organization id may be: one token of a NATS subject
 * (`noetl.<tenant>.work`) and of a Redis key, with no separator or wildcard.
 */
export const SCOPE_ID = /^[A-Za-z0-9_-]{1,64}$/;
