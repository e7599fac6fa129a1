import { Global, Module } from '@nestjs/common';
import { loadConfig, type NoetlConfig } from '@noetl/config';

/** Injection token of the validated configuration. */
export const NOETL_CONFIG = Symbol('NoetlConfig');

/** Provides the configuration; `forRoot(config)` lets a process that already loaded it (the CLI) pass it in. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: NoetlConfig = loadConfig(process.env)) {
    return {
      module: ConfigModule,
      providers: [{ provide: NOETL_CONFIG, useValue: config }],
      exports: [NOETL_CONFIG],
    };
  }
}

export type { NoetlConfig };
