import { type DynamicModule, Module } from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { ConfigModule, DatabaseModule } from '@noetl/platform';

/** The scheduler role: configuration and the migrated ledger database. */
@Module({})
export class SchedulerModule {
  static forRoot(config?: NoetlConfig): DynamicModule {
    return { module: SchedulerModule, imports: [ConfigModule.forRoot(config), DatabaseModule] };
  }
}
