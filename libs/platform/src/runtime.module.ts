import {
  Global,
  Inject,
  Injectable,
  Module,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import {
  Engine,
  InProcessBus,
  PerTenant,
  RuntimeMetrics,
  startTracing,
  stopTracing,
  Worker,
  type Bus,
  type TenantRuntime,
} from '@noetl/runtime';
import { Database } from '@noetl/storage';
import { NOETL_CONFIG } from './config.module';
import { createLogger } from './logger';
import {
  TenantAdmins,
  TenantCatalogs,
  TenantControlPlanes,
  TenantCredentials,
  TenantExecutions,
  TenantReplays,
  TenantSchedulers,
  TenantSchedules,
  TenantWorkerDirectories,
} from './tenant-services';
import { NestBus } from './transport/nest-bus';

/** Injection token of the process's bus: Nest's NATS client when NATS_URL is set, else in-process. */
export const NOETL_BUS = Symbol('NoetlBus');
/** Injection token of this process's worker id (its targeted subjects are subscribed before the engine starts). */
export const WORKER_ID = Symbol('WorkerId');

/** One sweep now of every tenant the scheduler role serves (Engine.sweepLogged): the scheduler module runs it on its interval. */
export class SchedulerSweep {
  constructor(readonly run: () => Promise<void>) {}
}

/**
 * On shutdown, stops the engine (the worker drains first, for up to
 * NOETL_SHUTDOWN_GRACE_SECONDS) in beforeApplicationShutdown: Nest runs every
 * such hook before the first onApplicationShutdown one, and the database
 * module's closes the pool. Stopped later, the engine's readers of the ledger
 * and its sweep would find their connections gone and log the failure of a
 * clean SIGTERM. The bus closes last, then the traces are flushed.
 */
@Injectable()
class RuntimeLifecycle implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    private readonly engine: Engine,
    @Inject(NOETL_CONFIG) private readonly config: NoetlConfig,
    @Inject(NOETL_BUS) private readonly bus: Bus,
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    await this.engine.stop(this.config.shutdown.graceMs);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
    // Last: the spans of the work that just stopped are sent.
    await stopTracing();
  }
}

/** A provider of one part of the engine: controllers and handlers inject the part, never the engine. */
const part = <T>(provide: abstract new (...args: never[]) => T, pick: (engine: Engine) => T | undefined) => ({
  provide,
  useFactory: pick,
  inject: [Engine],
});

/** A provider of one service of every tenant's runtime (its class is the token). */
const perTenant = <T>(provide: new (pick: (scope: TenantRuntime['scope']) => T) => PerTenant<T>, pick: (tenant: TenantRuntime) => T) => ({
  provide,
  useFactory: (engine: Engine) => new provide((scope) => pick(engine.tenant(scope))),
  inject: [Engine],
});

/**
 * The runtime of a Nest process: one `Engine` running the roles of
 * `config.roles` on the process's database (if it opens one), exposed as narrow providers:
 * per tenant (catalog, executions, control plane, admin, credentials,
 * replay, worker registry, the scheduler of a process with that role: each
 * `of(scope)`), and the process's metrics and worker.
 * With NATS, notifications arrive through the apps' `@OnNotification`
 * handlers; without it, the engine's in-process bus delivers them itself.
 */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(options: { workerId: string }): DynamicModule {
    return {
      module: RuntimeModule,
      providers: [
        { provide: WORKER_ID, useValue: options.workerId },
        {
          provide: NOETL_BUS,
          useFactory: (config: NoetlConfig): Promise<Bus> | Bus =>
            config.nats
              ? NestBus.connect(config.nats.servers, `noetl-${config.roles.join('+')}`, createLogger(config.log, 'nats'))
              : new InProcessBus(),
          inject: [NOETL_CONFIG],
        },
        {
          provide: Engine,
          useFactory: async (config: NoetlConfig, database: Database | undefined, bus: Bus) => {
            // Before the engine starts: its first sweep may already end a step, whose span is then recorded.
            if (config.tracing) await startTracing(config.tracing, `noetl-${config.roles.join('+')}`);
            return Engine.start({
              config,
              ...(database ? { database } : {}),
              bus,
              listen: !config.nats,
              workerId: options.workerId,
              logger: createLogger(config.log, config.roles.join('+')),
              sweepEvery: 'caller',
            });
          },
          // No Database in a worker on the API's control plane (`opensLedger`).
          inject: [NOETL_CONFIG, { token: Database, optional: true }, NOETL_BUS],
        },
        perTenant(TenantCatalogs, (tenant) => tenant.catalog),
        perTenant(TenantExecutions, (tenant) => tenant.executions),
        perTenant(TenantControlPlanes, (tenant) => tenant.controlPlane),
        perTenant(TenantAdmins, (tenant) => tenant.admin),
        perTenant(TenantReplays, (tenant) => tenant.replay),
        perTenant(TenantWorkerDirectories, (tenant) => tenant.workers),
        perTenant(TenantCredentials, (tenant) => tenant.credentials),
        perTenant(TenantSchedulers, (tenant) => tenant.scheduler),
        perTenant(TenantSchedules, (tenant) => tenant.schedules),
        part(RuntimeMetrics, (engine) => engine.metrics),
        part(SchedulerSweep, (engine) => new SchedulerSweep(() => engine.sweepLogged())),
        part(Worker, (engine) => engine.worker),
        RuntimeLifecycle,
      ],
      exports: [
        WORKER_ID,
        TenantCatalogs,
        TenantExecutions,
        TenantControlPlanes,
        TenantAdmins,
        TenantReplays,
        TenantWorkerDirectories,
        TenantCredentials,
        TenantSchedulers,
        TenantSchedules,
        RuntimeMetrics,
        SchedulerSweep,
        Worker,
      ],
    };
  }
}
