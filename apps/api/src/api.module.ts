import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { NOETL_CONFIG, type NoetlConfig } from '@noetl/platform';
import { ApiKeys, Authenticator, TokenVerifier } from '@noetl/runtime';
import { ApiKeyRepository, Database } from '@noetl/storage';
import { ApiKeysController } from './auth/api-keys.controller';
import { AuthGuard } from './auth/auth.guard';
import { AdminController } from './admin/admin.controller';
import { CatalogController } from './catalog/catalog.controller';
import { ChildrenController } from './control-plane/children.controller';
import { CommandsController } from './control-plane/commands.controller';
import { FramesController } from './control-plane/frames.controller';
import { WorkerEventsController } from './control-plane/worker-events.controller';
import { CredentialsController } from './credentials/credentials.controller';
import { ExecutionsController } from './executions/executions.controller';
import { DatabaseHealthIndicator } from './health/database.health';
import { HealthController } from './health/health.controller';
import { NatsHealthIndicator } from './health/nats.health';
import { RedisHealthIndicator } from './health/redis.health';
import { MetricsController } from './metrics/metrics.controller';
import { ReplayController } from './replay/replay.controller';
import { SchedulesController } from './schedules/schedules.controller';
import { WorkersController } from './workers/workers.controller';

/** The api role: REST over the runtime (DESIGN.md s6) behind API keys or tokens, health probes, metrics and Swagger. Build on CoreModule (AppRootModule). */
@Module({})
export class ApiModule {
  static forRoot(): DynamicModule {
    return {
      module: ApiModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [
        HealthController,
        MetricsController,
        CatalogController,
        ExecutionsController,
        CommandsController,
        FramesController,
        ChildrenController,
        WorkerEventsController,
        CredentialsController,
        AdminController,
        WorkersController,
        ReplayController,
        ApiKeysController,
        SchedulesController,
      ],
      providers: [
        DatabaseHealthIndicator,
        RedisHealthIndicator,
        NatsHealthIndicator,
        { provide: ApiKeys, useFactory: (database: Database) => new ApiKeys(database, new ApiKeyRepository()), inject: [Database] },
        {
          provide: Authenticator,
          useFactory: (keys: ApiKeys, config: NoetlConfig) => new Authenticator(keys, config.auth.oidc && new TokenVerifier(config.auth.oidc)),
          inject: [ApiKeys, NOETL_CONFIG],
        },
        // Every route of the app, as declared by its @Access (issue 11).
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
    };
  }
}
