import { type DynamicModule, Module } from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { offeredTenant, offerSubjects } from '@noetl/runtime';
import { workOffersController } from './work-offers.controller';

/**
 * The worker role (libs/runtime/src/worker): claims, runs and reports (the
 * engine builds it), and, between services, the NATS handlers of its offers:
 * those made to it by id and, unless it runs only some tool kinds
 * (NOETL_WORKER_TOOLS), its pool's broadcast (NOETL_WORKER_POOL).
 */
@Module({})
export class WorkerModule {
  static forRoot(config: NoetlConfig, workerId: string): DynamicModule {
    const controllers = config.nats ? offerSubjects(offeredTenant(config), workerId, config.worker).map(workOffersController) : [];
    return { module: WorkerModule, controllers };
  }
}
