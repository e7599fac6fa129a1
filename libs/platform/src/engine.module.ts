import { Global, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { Engine } from '@noetl/runtime';
import { Database } from '@noetl/storage';
import { NOETL_CONFIG } from './config.module';
import { createLogger } from './logger';

/** Stops the engine before the database closes (Nest shuts providers down in reverse order of creation). */
@Injectable()
class EngineLifecycle implements OnApplicationShutdown {
  constructor(private readonly engine: Engine) {}

  async onApplicationShutdown(): Promise<void> {
    await this.engine.stop();
  }
}

/**
 * The runtime for a Nest process: one `Engine` running the roles of
 * `NOETL_ROLES` on the process's database. Import it next to ConfigModule
 * and DatabaseModule; controllers inject `Engine`.
 */
@Global()
@Module({
  providers: [
    {
      provide: Engine,
      useFactory: (config: NoetlConfig, database: Database) =>
        Engine.start({ config, database, logger: createLogger(config.log.level, config.roles.join('+')) }),
      inject: [NOETL_CONFIG, Database],
    },
    EngineLifecycle,
  ],
  exports: [Engine],
})
export class EngineModule {}
