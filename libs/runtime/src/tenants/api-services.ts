import type { LedgerTransaction, TenantScope } from '@noetl/storage';
import { AdminService } from '../admin/admin.service';
import { ObjectCollector } from '../admin/object-collector';
import { notifyExecution } from '../bus/bus';
import { LocalControlPlane } from '../control-plane/local-control-plane';
import { ScheduleService } from '../cron-schedules/schedule.service';
import type { CredentialStore } from '../credentials/credential-types';
import { PgCredentialStore } from '../credentials/pg-credential-store';
import { ExecutionService } from '../executions/execution.service';
import { ProjectedStates } from '../projection/projected-states';
import { Replay } from '../projection/replay';
import type { Scheduler } from '../scheduler/scheduler';
import { WorkerDirectory } from '../worker-registry/worker-directory';
import type { LedgerServices } from './ledger-services';
import { WORKER_REPORT_MS, type SharedParts } from './shared-parts';

/** What the API serves a tenant with; the sweeper starts, cancels and reports through the executions service and the control plane too. */
export interface ApiServices {
  executions: ExecutionService;
  credentials: CredentialStore;
  controlPlane: LocalControlPlane;
  schedules: ScheduleService;
  /** With an object tier: retention of the tenant's objects after purges. */
  objectCollector?: ObjectCollector;
  admin: AdminService;
  replay: Replay;
  workers: WorkerDirectory;
}

/** `scheduler`: this process's, with the scheduler role; an execution's start and a report are then planned in their own transactions (Scheduler.planWithin). */
export function apiServices(scope: TenantScope, shared: SharedParts, core: LedgerServices, scheduler: Scheduler | undefined): ApiServices {
  const { config, database: db, bus, metrics, repositories: repos } = shared;
  const { store: payloadStore, within: payloadStoreWithin } = shared.payloads;
  const { ledger, payloads, states, catalog, offers, owners, rows } = core;
  const executions = new ExecutionService(
    db,
    ledger,
    catalog,
    states,
    payloads,
    bus,
    metrics,
    rows.executionRows,
    new ProjectedStates(ledger, repos.projections),
    repos.tenantRows,
    config.payloads.inlineLimitBytes,
    config.limits,
    scheduler && ((q, executionId) => scheduler.planWithin(q, executionId)),
  );
  const credentials = new PgCredentialStore(db, shared.cipher, scope);
  const controlPlane = new LocalControlPlane({
    db,
    ledger,
    states,
    catalog,
    payloads,
    payloadStore,
    payloadStoreWithin,
    inlineLimitBytes: config.payloads.inlineLimitBytes,
    inlineLoopResults: config.payloads.inlineLoopResults,
    credentials,
    executions,
    bus,
    metrics,
    ...rows,
    workerRows: repos.workerRows,
    offers,
    owners,
    logger: shared.logger.child({ role: 'control-plane', tenant: scope.tenantId }),
    ...(shared.localSlots ? { slots: shared.localSlots } : {}),
    ...(scheduler
      ? {
          planWithin: (q: LedgerTransaction, executionId: string, after?: string) => scheduler.planWithin(q, executionId, after),
          held: (executionId: string) => scheduler.heldState(executionId),
        }
      : {}),
  });
  const { objects } = shared.payloads;
  const objectCollector =
    objects && config.payloads.s3
      ? ObjectCollector.forTenant({
          db,
          scope,
          collection: { objects, payloads: payloadStore, references: repos.payloadReferences, graceMs: config.payloads.s3.gcGraceMs },
          now: () => ledger.now(),
          logger: shared.logger.child({ role: 'retention', tenant: scope.tenantId }),
        })
      : undefined;
  return {
    executions,
    credentials,
    controlPlane,
    schedules: new ScheduleService({ db, ledger, rows: repos.scheduleRows, catalog, executions }),
    ...(objectCollector ? { objectCollector } : {}),
    admin: new AdminService({
      db,
      ledger,
      offers,
      notify: (executionId) => notifyExecution(bus, scope, executionId),
      ...rows,
      ...(objectCollector ? { objectCollector } : {}),
    }),
    replay: new Replay(db, ledger, repos.projections, payloads),
    workers: new WorkerDirectory({
      db,
      workerRows: repos.workerRows,
      commandRows: repos.commandRows,
      frameRows: repos.frameRows,
      scope,
      freshMs: 3 * WORKER_REPORT_MS,
    }),
  };
}
