import type { DynamicModule, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Database } from '@noetl/storage';
import { loadConfig, type NoetlConfig } from '@noetl/config';
import { pingDatabase } from './database.module';
import { createLogger, PinoNestLogger } from './logger';
import { startProbeServer } from './probe-server';

/**
 * Boots a non-HTTP role (scheduler, worker, projector) as an application
 * context plus its probe server, and closes both on SIGTERM/SIGINT.
 */
export async function bootRole(name: string, module: (config: NoetlConfig) => DynamicModule): Promise<INestApplicationContext> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.log.level, name);
  const app = await NestFactory.createApplicationContext(module(config), { logger: new PinoNestLogger(logger) });
  const database = app.get(Database);
  const probe = await startProbeServer(config.http.port, async () => ({ database: await pingDatabase(database) }));
  logger.info({ port: probe.port }, `${name} ready`);
  const stop = async () => {
    await probe.close();
    await app.close();
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  return app;
}
