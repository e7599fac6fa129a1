import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { ThrottlerModule } from '@nestjs/throttler';
import { NOETL_CONFIG, type NoetlConfig } from '@noetl/platform';
import { ApiKeys, Authenticator, TokenVerifier } from '@noetl/runtime';
import { ApiKeyRepository, Database } from '@noetl/storage';
import type { Request } from 'express';
import { ApiKeysController } from './auth/api-keys.controller';
import { SignInOptionsController } from './auth/sign-in-options.controller';
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
import { LedgerVerificationController } from './replay/ledger-verification.controller';
import { ReplayController } from './replay/replay.controller';
import { CredentialSettingsController } from './credentials/credential-settings.controller';
import { isPublicApi } from './public-api';
import { HttpThrottlerGuard } from './rate-limit/http-throttler.guard';
import { throttleKeyOf } from './rate-limit/throttle-key';
import { SchedulesController } from './schedules/schedules.controller';
import { SchemaController } from './schema/schema.controller';
import { WorkersController } from './workers/workers.controller';
import { WebUiModule } from './web-ui/web-ui.module';

/** The api role: REST over the runtime (DESIGN.md s6) behind API keys or tokens, health probes, metrics and Swagger. Build on CoreModule (AppRootModule). */
@Module({})
export class ApiModule {
  static forRoot(): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        WebUiModule,
        // The public API's rate limit (NOETL_RATE_LIMIT per NOETL_RATE_LIMIT_WINDOW_SECONDS): 429 with Retry-After past it.
        ThrottlerModule.forRootAsync({
          inject: [NOETL_CONFIG],
          useFactory: ({ rateLimit }: NoetlConfig) => ({
            throttlers: [{ limit: rateLimit.requests, ttl: rateLimit.windowMs }],
            getTracker: (_request, context) => throttleKeyOf(context.switchToHttp().getRequest<Request>()),
            // One budget per client across the public API (the library's default is one per route).
            generateKey: (_context, tracker, throttler) => `${throttler}:${tracker}`,
            // Only requests to the public API are limited (HttpThrottlerGuard lets the NATS handlers through).
            skipIf: (context) => rateLimit.requests === 0 || !isPublicApi(context.switchToHttp().getRequest<Request>()),
          }),
        }),
      ],
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
        LedgerVerificationController,
        CredentialSettingsController,
        ApiKeysController,
        SignInOptionsController,
        SchedulesController,
        SchemaController,
      ],
      providers: [
        DatabaseHealthIndicator,
        RedisHealthIndicator,
        NatsHealthIndicator,
        { provide: ApiKeys, useFactory: (database: Database) => new ApiKeys(database, new ApiKeyRepository()), inject: [Database] },
        {
          provide: Authenticator,
          useFactory: (keys: ApiKeys, config: NoetlConfig) =>
            new Authenticator(keys, config.auth.oidc && new TokenVerifier(config.auth.oidc)),
          inject: [ApiKeys, NOETL_CONFIG],
        },
        // Every route of the app, as declared by its @Access (issue 11).
        { provide: APP_GUARD, useClass: AuthGuard },
        // After the AuthGuard: a request spends its caller's budget (throttleKeyOf).
        { provide: APP_GUARD, useClass: HttpThrottlerGuard },
      ],
    };
  }
}
