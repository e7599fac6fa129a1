import type { NoetlConfig } from '@noetl/config';
import { defaultUpcasters, SnowflakeIds } from '@noetl/event-kernel';
import { PgEventStore, ProjectionRepository, type Database } from '@noetl/storage';
import { Ledger } from '../ledger';
import { RuntimeMetrics } from '../metrics';
import { Projector } from './projector';
import { ProjectorMetrics } from './projector-metrics';

/**
 * `noetl projector rebuild`: drops the projections of `executionIds` (every
 * execution of the tenant when omitted) and folds them again from the
 * ledger. A rebuild of the same events gives byte-identical rows.
 */
export async function rebuildProjections(database: Database, config: NoetlConfig, executionIds?: readonly string[]): Promise<number> {
  const metrics = new RuntimeMetrics();
  // Reads only: the ledger mints no id here.
  const ledger = new Ledger(new PgEventStore(database), new SnowflakeIds(0, () => Date.now()), config.tenancy, 'projector-rebuild', metrics);
  const projector = new Projector({
    db: database,
    ledger,
    projections: new ProjectionRepository(),
    upcasters: defaultUpcasters(),
    metrics: new ProjectorMetrics(metrics.registry),
    shard: 'rebuild',
    snapshotEvery: PROJECTION_SNAPSHOT_EVERY,
  });
  return projector.rebuild(executionIds);
}

/** A projection keeps a snapshot each time it crosses a multiple of this many events (replay seeds from it). */
export const PROJECTION_SNAPSHOT_EVERY = 500;
