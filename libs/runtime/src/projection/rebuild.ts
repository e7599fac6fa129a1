import type { NoetlConfig } from '@noetl/config';
import { REDUCER_VERSION, SnowflakeIds } from '@noetl/event-kernel';
import { PgEventStore, ProjectionRepository, type Database, type TenantScope } from '@noetl/storage';
import { Ledger } from '../ledger';
import { RuntimeMetrics } from '../metrics';
import { Projector, type ProjectorOptions } from './projector';
import { ProjectorMetrics } from './projector-metrics';

/** A projection keeps a snapshot each time it crosses a multiple of this many events (replay seeds from it). */
export const PROJECTION_SNAPSHOT_EVERY = 500;

/** A projector of its own on `database`, outside any engine: for a rebuild, the replay gate and benches. */
export function standaloneProjector(
  database: Database,
  config: NoetlConfig,
  options: Partial<Pick<ProjectorOptions, 'snapshotEvery' | 'observe' | 'shard'>> & { scope?: TenantScope } = {},
): Projector {
  const metrics = new RuntimeMetrics();
  // Reads only: the ledger mints no id here.
  const ledger = new Ledger(
    new PgEventStore(database),
    new SnowflakeIds(0, () => Date.now()),
    options.scope ?? config.tenancy,
    'projector',
    metrics,
  );
  return new Projector({
    db: database,
    ledger,
    projections: new ProjectionRepository(REDUCER_VERSION),
    metrics: new ProjectorMetrics(metrics.registry),
    shard: options.shard ?? 'standalone',
    snapshotEvery: options.snapshotEvery ?? PROJECTION_SNAPSHOT_EVERY,
    ...(options.observe ? { observe: options.observe } : {}),
  });
}

/**
 * `noetl projector rebuild`: drops the projections of `executionIds` (every
 * execution of the tenant when omitted) and folds them again from the
 * ledger. A rebuild of the same events gives byte-identical rows. Of the
 * process's own tenant unless `scope` names another.
 */
export async function rebuildProjections(
  database: Database,
  config: NoetlConfig,
  executionIds?: readonly string[],
  scope?: TenantScope,
): Promise<number> {
  return standaloneProjector(database, config, { shard: 'rebuild', ...(scope ? { scope } : {}) }).rebuild(executionIds);
}
