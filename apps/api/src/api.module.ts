import { type DynamicModule, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { NoetlConfig } from '@noetl/config';
import { ConfigModule, DatabaseModule } from '@noetl/platform';
import { DatabaseHealthIndicator } from './health/database.health';
import { HealthController } from './health/health.controller';

/** The api role: REST over the ledger, health probes and Swagger. */
@Module({})
export class ApiModule {
  static forRoot(config?: NoetlConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController],
      providers: [DatabaseHealthIndicator],
    };
  }
}
