import type { TenantScope } from '@noetl/storage';
import { ScheduleTicker } from '../cron-schedules/schedule-ticker';
import { Scheduler } from '../scheduler/scheduler';
import { Sweeper } from '../scheduler/sweeper';
import type { ApiServices } from './api-services';
import type { LedgerServices } from './ledger-services';
import { SchedulerFollowUpsRelay } from './scheduler-follow-ups';
import type { SharedParts } from './shared-parts';

/** The tenant's planner, and where its committed passes' follow-ups go (the sweeper, once `tenantSweeper` built it). */
export interface TenantPlanning {
  scheduler: Scheduler;
  followUps: SchedulerFollowUpsRelay;
}

/** The scheduler role's planner of the tenant. */
export function tenantScheduler(scope: TenantScope, shared: SharedParts, core: LedgerServices): TenantPlanning {
  const { config } = shared;
  const followUps = new SchedulerFollowUpsRelay(scope, shared.lane);
  const scheduler = new Scheduler({
    db: shared.database,
    ledger: core.ledger,
    catalog: core.catalog,
    payloads: core.payloads,
    payloadStoreWithin: shared.payloads.within,
    inlineLimitBytes: config.payloads.inlineLimitBytes,
    offloadItems: config.payloads.offloadItems,
    maxLoopItems: config.limits.loopItems,
    expressions: shared.expressions,
    renders: { slice: shared.inlineSlice, offload: shared.offloadRender('scheduler') },
    bus: shared.bus,
    offers: core.offers,
    metrics: shared.metrics,
    logger: shared.logger.child({ role: 'scheduler', tenant: scope.tenantId }),
    rows: core.rows,
    ...(shared.localSlots ? { slots: shared.localSlots } : {}),
    leaseMs: config.worker.leaseMs,
    owners: core.owners,
    followUps,
  });
  return { scheduler, followUps };
}

/** The scheduler role's safety net for the tenant, built once the services it calls exist; it takes the scheduler's follow-ups from here on. */
export function tenantSweeper(
  scope: TenantScope,
  shared: SharedParts,
  core: LedgerServices,
  api: ApiServices,
  { scheduler, followUps }: TenantPlanning,
): Sweeper {
  const { config, database: db, repositories: repos } = shared;
  const { ledger } = core;
  const { executions } = api;
  const sweeper = new Sweeper(
    {
      db,
      ledger,
      bus: shared.bus,
      offers: core.offers,
      executions,
      controlPlane: api.controlPlane,
      logger: shared.logger.child({ role: 'sweeper', tenant: scope.tenantId }),
      ...(shared.firesSchedules
        ? {
            schedules: new ScheduleTicker({
              db,
              ledger,
              rows: repos.scheduleRows,
              executions,
              logger: shared.logger.child({ role: 'schedules', tenant: scope.tenantId }),
            }),
          }
        : {}),
      // A few sweeps' grace before an unclaimed command is offered again.
      renotifyAfterMs: Math.max(1000, config.scheduler.sweepMs * 5),
      // A leader silent for a few sweeps (and at least 5 s) is replaced.
      leadershipMs: Math.max(5000, config.scheduler.sweepMs * 5),
      leadership: repos.leadership,
      ...core.rows,
    },
    scheduler,
  );
  followUps.handTo(sweeper);
  return sweeper;
}
