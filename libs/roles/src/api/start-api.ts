import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NoetlConfig } from '@noetl/config';
import {
  AppRootModule,
  createLogger,
  listenForNotifications,
  PinoNestLogger,
  warnIfLedgerBypassable,
  warnIfUserCodeExposed,
  type RoleModules,
} from '@noetl/platform';
import { Database } from '@noetl/storage';
import { ApiKeys } from '@noetl/runtime';
import type { Logger } from 'pino';
import { ApiModule } from './api.module';
import { bootstrapAuth } from './auth/bootstrap-auth';
import { configureApi } from './configure-api';

/**
 * The api app as every entry point starts it (`main.ts`, `noetl server`):
 * built with its role modules (default: the api alone), configured, its
 * first admin key made when the deployment has none, listening on PORT, and
 * on NATS when it also runs the scheduler or worker.
 */
export async function startApi(
  config: NoetlConfig,
  name: string,
  roles: RoleModules = () => [ApiModule.forRoot()],
): Promise<{ app: NestExpressApplication; logger: Logger }> {
  const logger = createLogger(config.log, name);
  const app = await NestFactory.create<NestExpressApplication>(AppRootModule.forRoot(config, roles), {
    logger: new PinoNestLogger(logger),
  });
  configureApi(app, config);
  app.enableShutdownHooks();
  await listenForNotifications(app, config, name);
  await warnIfLedgerBypassable(app.get(Database), logger);
  warnIfUserCodeExposed(config, logger);
  await bootstrapAuth(app.get(ApiKeys), config, logger);
  await app.listen(config.http.port);
  return { app, logger };
}
