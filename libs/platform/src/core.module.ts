import { Module, type DynamicModule } from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { newWorkerId } from '@noetl/runtime';
import { ConfigModule } from './config.module';
import { DatabaseModule } from './database.module';
import { opensLedger } from './ledger-access';
import { RuntimeModule } from './runtime.module';

/**
 * What every role's process is built on: the validated configuration, the
 * migrated ledger database (but in a worker on the API's control plane:
 * `opensLedger`) and the runtime. An app's root module is this plus its
 * role modules (`rootModule`).
 */
@Module({})
export class CoreModule {
  static forRoot(config: NoetlConfig, workerId: string): DynamicModule {
    return {
      module: CoreModule,
      imports: [ConfigModule.forRoot(config), ...(opensLedger(config) ? [DatabaseModule] : []), RuntimeModule.forRoot({ workerId })],
    };
  }
}

/** The modules of the roles a process runs; each gets the worker id, which targeted offers are addressed to. */
export type RoleModules = (config: NoetlConfig, workerId: string) => DynamicModule[];

/** The root module of a process: the core and the given role modules. */
@Module({})
export class AppRootModule {
  static forRoot(config: NoetlConfig, roles: RoleModules): DynamicModule {
    const workerId = newWorkerId();
    return { module: AppRootModule, imports: [CoreModule.forRoot(config, workerId), ...roles(config, workerId)] };
  }
}
