import {
  PerTenant,
  type AdminService,
  type CatalogService,
  type CredentialStore,
  type ExecutionService,
  type LocalControlPlane,
  type Replay,
  type ScheduleService,
  type Scheduler,
  type WorkerDirectory,
} from '@noetl/runtime';

/*
 * The per-tenant services a controller injects, one class per service so
 * each is its own injection token: a controller declares what it uses and
 * calls `of(caller.scope)` for the tenant of the request.
 */
export class TenantCatalogs extends PerTenant<CatalogService> {}
export class TenantExecutions extends PerTenant<ExecutionService> {}
export class TenantControlPlanes extends PerTenant<LocalControlPlane> {}
export class TenantAdmins extends PerTenant<AdminService> {}
export class TenantReplays extends PerTenant<Replay> {}
export class TenantWorkerDirectories extends PerTenant<WorkerDirectory> {}
export class TenantCredentials extends PerTenant<CredentialStore> {}
export class TenantSchedules extends PerTenant<ScheduleService> {}
/** In a process with the scheduler role. */
export class TenantSchedulers extends PerTenant<Scheduler | undefined> {}
