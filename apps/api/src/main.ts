import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadConfig } from '@noetl/config';
import { createLogger, PinoNestLogger } from '@noetl/platform';
import { ApiModule } from './api.module';
import { configureApi } from './configure-api';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.log.level, 'api');
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(config), { logger: new PinoNestLogger(logger) });
  configureApi(app);
  app.enableShutdownHooks();
  await app.listen(config.http.port);
  logger.info({ port: config.http.port }, 'api ready');
}

void main().catch((error: unknown) => {
  process.stderr.write(`api: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
