import { Inject, Injectable, Module, type DynamicModule, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import type { NoetlConfig } from '@noetl/config';
import { NOETL_CONFIG, SchedulerSweep } from '@noetl/platform';
import { RelayModule } from '../relay/relay.module';
import { ExecutionNotificationsController } from './execution-notifications.controller';

const SWEEP_INTERVAL = 'noetl-sweep';

/**
 * The sweep every NOETL_SWEEP_MS, on an interval of @nestjs/schedule: it
 * plans what no notification planned, fires due timers and schedules, and
 * reaps expired leases. Removed as the module is destroyed, before the
 * engine stops (beforeApplicationShutdown), so no sweep starts on a stopping engine.
 */
@Injectable()
class SweepInterval implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    private readonly sweep: SchedulerSweep,
    private readonly schedules: SchedulerRegistry,
    @Inject(NOETL_CONFIG) private readonly config: NoetlConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.schedules.addInterval(
      SWEEP_INTERVAL,
      setInterval(() => void this.sweep.run(), this.config.scheduler.sweepMs),
    );
  }

  onModuleDestroy(): void {
    if (this.schedules.doesExist('interval', SWEEP_INTERVAL)) this.schedules.deleteInterval(SWEEP_INTERVAL);
  }
}

/**
 * The scheduler role (libs/runtime/src/scheduler): routing, stages and
 * frames (the engine's scheduler of each tenant), the sweep on its interval,
 * and, between services, the NATS handler that tells it which execution to
 * plan and the deployment's event relay to JetStream. The retry lane is the
 * engine's, with Redis.
 */
@Module({})
export class SchedulerModule {
  static forRoot(config: NoetlConfig): DynamicModule {
    return {
      module: SchedulerModule,
      imports: [ScheduleModule.forRoot(), ...(config.nats ? [RelayModule.forRoot()] : [])],
      providers: [SweepInterval],
      controllers: config.nats ? [ExecutionNotificationsController] : [],
    };
  }
}
