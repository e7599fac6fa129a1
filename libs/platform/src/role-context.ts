import type { DynamicModule, INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NoetlConfig } from '@noetl/config';
import { NATS_RECONNECT_FOREVER, RuntimeMetrics, Worker } from '@noetl/runtime';
import { Database } from '@noetl/storage';
import { pingDatabase } from './database.module';
import { opensLedger } from './ledger-access';
import { warnIfLedgerBypassable } from './ledger-bypass-warning';
import { warnIfUserCodeExposed } from './user-code-exposure';
import { createLogger, PinoNestLogger } from './logger';
import { startProbeServer } from './probe-server';
import { QueueGroupNatsServer } from './transport/queue-group-nats.server';

/**
 * Boots a process without the REST API (scheduler, worker, projector, or
 * `noetl server` without `api`): with NATS, a Nest microservice whose
 * `@OnNotification` handlers receive the notifications; without it, an
 * application context (the engine's in-process bus delivers them). Either
 * way a probe server answers /health/live, /health/ready and /metrics on
 * PORT; a worker is ready once the registry took its report (and, if it
 * opened the ledger, the database answers). SIGTERM/SIGINT close it: the worker drains first.
 */
export async function bootRole(name: string, config: NoetlConfig, root: DynamicModule): Promise<INestApplicationContext> {
  const logger = createLogger(config.log, name);
  const nestLogger = new PinoNestLogger(logger);
  let app: INestApplicationContext;
  if (config.nats) {
    const service = await NestFactory.createMicroservice(root, {
      strategy: new QueueGroupNatsServer({ servers: config.nats.servers, name: `noetl-${name}`, ...NATS_RECONNECT_FOREVER }),
      logger: nestLogger,
    });
    await service.listen();
    app = service;
  } else {
    app = await NestFactory.createApplicationContext(root, { logger: nestLogger });
  }
  const database = opensLedger(config) ? app.get(Database) : undefined;
  if (database) await warnIfLedgerBypassable(database, logger);
  else if (config.database.url)
    logger.warn(
      'DATABASE_URL is set but unused: a worker that reports to NOETL_SERVER_URL opens no ledger database; remove it from its environment',
    );
  warnIfUserCodeExposed(config, logger);
  const metrics = app.get(RuntimeMetrics);
  const worker = config.roles.includes('worker') ? app.get(Worker) : undefined;
  const probe = await startProbeServer(
    config.http.port,
    async () => {
      const notRegistered = worker?.notReadyBecause;
      // A worker without the database is ready on its registry alone: the API that took its report checks the database.
      return {
        ...(database ? { database: await pingDatabase(database) } : {}),
        ...(worker ? { registry: notRegistered ? { down: notRegistered } : 'up' } : {}),
      };
    },
    async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }),
  );
  logger.info({ port: probe.port, roles: config.roles }, `${name} ready`);
  const stop = async () => {
    await probe.close();
    await app.close();
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  return app;
}

/**
 * An HTTP app that also runs the scheduler or the worker, between services:
 * its `@OnNotification` handlers listen on NATS too. The app is initialised
 * first (a hybrid app's microservice counts as initialised at once, so a
 * notification could otherwise reach a guard or handler whose module has not
 * run its init hook), and the HTTP app's global pipes and filters stay with
 * HTTP: a notification has no response to write an error body to.
 */
export async function listenForNotifications(app: INestApplication, config: NoetlConfig, name: string): Promise<void> {
  if (!config.nats || !config.roles.some((role) => role === 'scheduler' || role === 'worker')) return;
  await app.init();
  app.connectMicroservice(
    { strategy: new QueueGroupNatsServer({ servers: config.nats.servers, name: `noetl-${name}`, ...NATS_RECONNECT_FOREVER }) },
    { inheritAppConfig: false },
  );
  await app.startAllMicroservices();
}
