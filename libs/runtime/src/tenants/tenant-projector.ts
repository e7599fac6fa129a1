import type { TenantScope } from '@noetl/storage';
import type { Ledger } from '../ledger';
import type { ProjectorMetrics } from '../projection/projector-metrics';
import { Projector } from '../projection/projector';
import { PROJECTION_SNAPSHOT_EVERY } from '../projection/rebuild';
import type { SharedParts } from './shared-parts';

/** The projector role's fold of the tenant's events into its projections. */
export function tenantProjector(scope: TenantScope, shared: SharedParts, ledger: Ledger, metrics: ProjectorMetrics): Projector {
  const { config } = shared;
  return new Projector({
    db: shared.database,
    ledger,
    projections: shared.repositories.projections,
    metrics,
    shard: String(config.projector.shardIndex),
    snapshotEvery: PROJECTION_SNAPSHOT_EVERY,
    logger: shared.logger.child({ role: 'projector', tenant: scope.tenantId }),
    ...shared.projectorTuning,
  });
}
