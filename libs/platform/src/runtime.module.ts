import { Global, Inject, Injectable, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import type { NoetlConfig } from '@noetl/config';
import {
  AdminService,
  CatalogService,
  Engine,
  ExecutionService,
  InProcessBus,
  LocalControlPlane,
  Replay,
  RuntimeMetrics,
  ScheduleService,
  Scheduler,
  Worker,
  WorkerDirectory,
  type Bus,
} from '@noetl/runtime';
import { Database } from '@noetl/storage';
import { NOETL_CONFIG } from './config.module';
import { createLogger } from './logger';
import { NestBus } from './transport/nest-bus';

/** Injection token of the credential store (an interface: `CredentialStore` in @noetl/runtime). */
export const CREDENTIAL_STORE = Symbol('CredentialStore');
/** Injection token of the process's bus: Nest's NATS client when NATS_URL is set, else in-process. */
export const NOETL_BUS = Symbol('NoetlBus');
/** Injection token of this process's worker id (its targeted subjects are subscribed before the engine starts). */
export const WORKER_ID = Symbol('WorkerId');

const SWEEP_INTERVAL = 'noetl-sweep';

/**
 * Runs the scheduler's sweep on an interval of @nestjs/schedule, and on
 * shutdown drains the worker (NOETL_SHUTDOWN_GRACE_SECONDS), stops the
 * engine, then closes the bus, before the database closes (Nest shuts
 * providers down in reverse order of creation).
 */
@Injectable()
class RuntimeLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly engine: Engine,
    private readonly schedules: SchedulerRegistry,
    @Inject(NOETL_CONFIG) private readonly config: NoetlConfig,
    @Inject(NOETL_BUS) private readonly bus: Bus,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.engine.scheduler) return;
    const interval = setInterval(() => void this.engine.sweepLogged(), this.config.scheduler.sweepMs);
    this.schedules.addInterval(SWEEP_INTERVAL, interval);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.schedules.doesExist('interval', SWEEP_INTERVAL)) this.schedules.deleteInterval(SWEEP_INTERVAL);
    await this.engine.stop(this.config.shutdown.graceMs);
    await this.bus.close();
  }
}

/** A provider of one part of the engine: controllers and handlers inject the part, never the engine. */
const part = <T>(provide: abstract new (...args: never[]) => T, pick: (engine: Engine) => T | undefined) => ({
  provide,
  useFactory: pick,
  inject: [Engine],
});

/**
 * The runtime of a Nest process: one `Engine` running the roles of
 * `config.roles` on the process's database, exposed as narrow providers
 * (catalog, executions, control plane, admin, credentials, metrics, worker
 * registry, and the scheduler and worker of a process with those roles).
 * With NATS, notifications arrive through the apps' `@OnNotification`
 * handlers; without it, the engine's in-process bus delivers them itself.
 */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(options: { workerId: string }): DynamicModule {
    return {
      module: RuntimeModule,
      imports: [ScheduleModule.forRoot()],
      providers: [
        { provide: WORKER_ID, useValue: options.workerId },
        {
          provide: NOETL_BUS,
          useFactory: (config: NoetlConfig): Promise<Bus> | Bus =>
            config.nats
              ? NestBus.connect(config.nats.url, `noetl-${config.roles.join('+')}`, createLogger(config.log.level, 'nats'))
              : new InProcessBus(),
          inject: [NOETL_CONFIG],
        },
        {
          provide: Engine,
          useFactory: (config: NoetlConfig, database: Database, bus: Bus) =>
            Engine.start({
              config,
              database,
              bus,
              listen: !config.nats,
              workerId: options.workerId,
              logger: createLogger(config.log.level, config.roles.join('+')),
              sweepEvery: 'caller',
            }),
          inject: [NOETL_CONFIG, Database, NOETL_BUS],
        },
        part(CatalogService, (engine) => engine.catalog),
        part(ExecutionService, (engine) => engine.executions),
        part(LocalControlPlane, (engine) => engine.controlPlane),
        part(AdminService, (engine) => engine.admin),
        part(Replay, (engine) => engine.replay),
        part(RuntimeMetrics, (engine) => engine.metrics),
        part(WorkerDirectory, (engine) => engine.workers),
        part(ScheduleService, (engine) => engine.schedules),
        part(Scheduler, (engine) => engine.scheduler),
        part(Worker, (engine) => engine.worker),
        { provide: CREDENTIAL_STORE, useFactory: (engine: Engine) => engine.credentials, inject: [Engine] },
        RuntimeLifecycle,
      ],
      exports: [
        WORKER_ID,
        CatalogService,
        ExecutionService,
        LocalControlPlane,
        AdminService,
        Replay,
        RuntimeMetrics,
        WorkerDirectory,
        ScheduleService,
        Scheduler,
        Worker,
        CREDENTIAL_STORE,
      ],
    };
  }
}
