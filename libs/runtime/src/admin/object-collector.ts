import type { Queryable, TenantScope } from '@noetl/storage';
import type { Logger } from 'pino';
import { collectUnreferencedObjects, type ObjectCollection } from './collect-unreferenced-objects';

/**
 * Retention of one tenant's objects, asked for by each purge and run off the
 * purge's path. A request made while a run is in flight is served by one more
 * run after it, and every request until that one starts shares it: a batch of
 * a thousand purges costs two passes over the ledger, not a thousand.
 */
export class ObjectCollector {
  private current: Promise<void> = Promise.resolve();
  private queued?: Promise<void>;

  constructor(private readonly run: () => Promise<void>) {}

  /** The tenant's collector: a run that fails is logged, and the next request runs again. */
  static forTenant(deps: {
    db: Queryable;
    scope: TenantScope;
    collection: ObjectCollection;
    now: () => Date;
    logger: Logger;
  }): ObjectCollector {
    return new ObjectCollector(async () => {
      try {
        const deleted = await collectUnreferencedObjects(deps.db, deps.scope, deps.collection, deps.now());
        if (deleted.length > 0) deps.logger.info({ objects: deleted.length }, 'retention deleted unreferenced payload objects');
      } catch (error) {
        deps.logger.error({ err: error }, 'retention could not collect payload objects; the next purge tries again');
      }
    });
  }

  /** A run that starts after this call; resolves once it has ended (never rejects). */
  request(): Promise<void> {
    if (!this.queued) {
      const next = this.current
        .then(() => {
          this.queued = undefined;
          return this.run();
        })
        .catch(() => undefined);
      this.queued = next;
      this.current = next;
    }
    return this.queued;
  }

  /** Resolves when the runs asked for so far have ended (a stopping process waits for them). */
  idle(): Promise<void> {
    return this.current;
  }
}
