import { type DynamicModule, Module } from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { ConfigModule, DatabaseModule } from '@noetl/platform';

/** The worker role: configuration and the migrated ledger database. */
@Module({})
export class WorkerModule {
  static forRoot(config?: NoetlConfig): DynamicModule {
    return { module: WorkerModule, imports: [ConfigModule.forRoot(config), DatabaseModule] };
  }
}
