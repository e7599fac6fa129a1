import { type DynamicModule, Module } from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { ExecutionNotificationsController } from './execution-notifications.controller';

/**
 * The scheduler role: routing, stages and frames, the sweep (RuntimeModule
 * runs it), and, between services, the NATS handler that tells it which
 * execution to plan.
 */
@Module({})
export class SchedulerModule {
  static forRoot(config: NoetlConfig): DynamicModule {
    return { module: SchedulerModule, controllers: config.nats ? [ExecutionNotificationsController] : [] };
  }
}
