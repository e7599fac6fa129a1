import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NoetlConfig } from '@noetl/config';
import { bootRole, createLogger, PinoNestLogger } from '@noetl/platform';
import { ApiModule } from '../../../api/src/api.module';
import { configureApi } from '../../../api/src/configure-api';
import { EngineRolesModule } from './engine-roles.module';

/**
 * `noetl server`: every role of NOETL_ROLES in this one process (DESIGN.md s3
 * "Modular monolith"). With `api`, the Nest HTTP app, whose EngineModule runs
 * the other roles; without it, an application context with the probe server.
 * SIGTERM and SIGINT close it cleanly (the embedded PostgreSQL too).
 */
export async function startServer(config: NoetlConfig): Promise<void> {
  if (config.roles.includes('api')) {
    const logger = createLogger(config.log.level, 'noetl-server');
    const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(config), { logger: new PinoNestLogger(logger) });
    configureApi(app);
    app.enableShutdownHooks();
    await app.listen(config.http.port);
  } else {
    await bootRole('noetl-server', (loaded) => EngineRolesModule.forRoot(loaded));
  }
  process.stdout.write(`noetl server listening on :${config.http.port} (roles: ${config.roles.join(', ')})\n`);
}
