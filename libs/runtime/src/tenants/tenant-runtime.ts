import type { TenantScope } from '@noetl/storage';
import type { ObjectCollector } from '../admin/object-collector';
import type { AdminService } from '../admin/admin.service';
import type { Offers } from '../bus/offers';
import type { CatalogService } from '../catalog/catalog.service';
import type { LocalControlPlane } from '../control-plane/local-control-plane';
import type { ScheduleService } from '../cron-schedules/schedule.service';
import type { CredentialStore } from '../credentials/credential-types';
import type { ExecutionService } from '../executions/execution.service';
import type { Ledger } from '../ledger';
import type { Projector } from '../projection/projector';
import type { Replay } from '../projection/replay';
import type { Scheduler } from '../scheduler/scheduler';
import type { Sweeper } from '../scheduler/sweeper';
import type { PayloadCache } from '../state/payload-cache';
import type { WorkerDirectory } from '../worker-registry/worker-directory';
import { apiServices } from './api-services';
import { ledgerServices } from './ledger-services';
import { tenantScheduler, tenantSweeper } from './scheduler-role';
import type { SharedParts } from './shared-parts';
import { tenantProjector } from './tenant-projector';

/**
 * Everything the runtime does for ONE tenant and organization (DESIGN.md
 * invariant 7): each service is built with the scope and every query and
 * event it makes carries it, so a request served by one tenant's runtime
 * cannot read or change another's rows. A process builds one per scope it
 * meets (`Engine.tenant`), on first use: the API's callers, the tenants of
 * notifications, the running executions a sweep finds.
 */
export class TenantRuntime {
  readonly ledger: Ledger;
  readonly payloads: PayloadCache;
  readonly catalog: CatalogService;
  readonly executions: ExecutionService;
  readonly controlPlane: LocalControlPlane;
  readonly credentials: CredentialStore;
  readonly admin: AdminService;
  readonly replay: Replay;
  readonly workers: WorkerDirectory;
  readonly offers: Offers;
  readonly schedules: ScheduleService;
  /** With the scheduler role. */
  readonly scheduler?: Scheduler;
  readonly sweeper?: Sweeper;
  /** With the projector role. */
  readonly projector?: Projector;
  /** With an object tier: retention of the tenant's objects after purges. */
  readonly objectCollector?: ObjectCollector;

  constructor(
    readonly scope: TenantScope,
    shared: SharedParts,
  ) {
    const core = ledgerServices(scope, shared);
    // The scheduler first: the executions service and the control plane plan through it, and the sweeper calls them.
    const planning = shared.roles.includes('scheduler') ? tenantScheduler(scope, shared, core) : undefined;
    const api = apiServices(scope, shared, core, planning?.scheduler);
    this.ledger = core.ledger;
    this.payloads = core.payloads;
    this.catalog = core.catalog;
    this.offers = core.offers;
    this.executions = api.executions;
    this.controlPlane = api.controlPlane;
    this.credentials = api.credentials;
    this.admin = api.admin;
    this.replay = api.replay;
    this.workers = api.workers;
    this.schedules = api.schedules;
    this.objectCollector = api.objectCollector;
    if (planning) {
      this.scheduler = planning.scheduler;
      this.sweeper = tenantSweeper(scope, shared, core, api, planning);
    }
    if (shared.projectorMetrics) this.projector = tenantProjector(scope, shared, core.ledger, shared.projectorMetrics);
  }

  /** Stops the sweeper's wake-ups and waits for the scheduler's passes in flight. */
  async stop(): Promise<void> {
    this.sweeper?.stop();
    await this.sweeper?.resign().catch(() => undefined); // its lease runs out instead
    await this.scheduler?.idle();
    await this.objectCollector?.idle();
  }
}

/** The key of a scope in maps. */
export function scopeKey(scope: TenantScope): string {
  return `${scope.tenantId}\u0000${scope.organizationId}`;
}
