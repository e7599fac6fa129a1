import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NoetlConfig } from '@noetl/config';
import { createLogger, PinoNestLogger } from '@noetl/platform';
import type { Logger } from 'pino';
import { ApiModule } from './api.module';
import { configureApi } from './configure-api';

/** The api app as every entry point starts it (`main.ts`, `noetl server`): built, configured, listening on PORT. */
export async function startApi(config: NoetlConfig, name: string): Promise<{ app: NestExpressApplication; logger: Logger }> {
  const logger = createLogger(config.log.level, name);
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(config), { logger: new PinoNestLogger(logger) });
  configureApi(app);
  app.enableShutdownHooks();
  await app.listen(config.http.port);
  return { app, logger };
}
