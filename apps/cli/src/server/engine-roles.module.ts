import { type DynamicModule, Module } from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { ConfigModule, DatabaseModule, EngineModule } from '@noetl/platform';

/** `noetl server` without the api role: the engine's roles over the ledger database, no HTTP but the probes. */
@Module({})
export class EngineRolesModule {
  static forRoot(config: NoetlConfig): DynamicModule {
    return { module: EngineRolesModule, imports: [ConfigModule.forRoot(config), DatabaseModule, EngineModule] };
  }
}
