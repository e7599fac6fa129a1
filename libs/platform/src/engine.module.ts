import { Global, Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import type { NoetlConfig } from '@noetl/config';
import { Engine } from '@noetl/runtime';
import { Database } from '@noetl/storage';
import { NOETL_CONFIG } from './config.module';
import { createLogger } from './logger';

/**
 * Runs the scheduler's sweep (the reaper of expired leases, due timers,
 * re-offers) on an interval of @nestjs/schedule, and stops the engine before
 * the database closes (Nest shuts providers down in reverse order of creation).
 */
@Injectable()
class EngineLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly engine: Engine,
    private readonly schedules: SchedulerRegistry,
    @Inject(NOETL_CONFIG) private readonly config: NoetlConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.roles.includes('scheduler')) return;
    const interval = setInterval(() => void this.engine.sweepLogged(), this.config.scheduler.sweepMs);
    this.schedules.addInterval(SWEEP_INTERVAL, interval);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.schedules.doesExist('interval', SWEEP_INTERVAL)) this.schedules.deleteInterval(SWEEP_INTERVAL);
    await this.engine.stop();
  }
}

const SWEEP_INTERVAL = 'noetl-sweep';

/**
 * The runtime for a Nest process: one `Engine` running the roles of
 * `NOETL_ROLES` on the process's database. Import it next to ConfigModule
 * and DatabaseModule; controllers inject `Engine`.
 */
@Global()
@Module({
  imports: [ScheduleModule.forRoot()],
  providers: [
    {
      provide: Engine,
      useFactory: (config: NoetlConfig, database: Database) =>
        Engine.start({ config, database, logger: createLogger(config.log.level, config.roles.join('+')), sweepEvery: 'caller' }),
      inject: [NOETL_CONFIG, Database],
    },
    EngineLifecycle,
  ],
  exports: [Engine],
})
export class EngineModule {}
