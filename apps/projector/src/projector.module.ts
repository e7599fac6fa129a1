import { type DynamicModule, Module } from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { ConfigModule, DatabaseModule } from '@noetl/platform';

/** The projector role: configuration and the migrated ledger database. */
@Module({})
export class ProjectorModule {
  static forRoot(config?: NoetlConfig): DynamicModule {
    return { module: ProjectorModule, imports: [ConfigModule.forRoot(config), DatabaseModule] };
  }
}
