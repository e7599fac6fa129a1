import { type DynamicModule, Module } from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { offeredTenant } from '@noetl/runtime';
import { broadcastOffersController, targetedOffersController } from './work-offers.controller';

/**
 * The worker role: claims, runs and reports (RuntimeModule builds it), and,
 * between services, the NATS handlers of its offers. A worker restricted to
 * some tool kinds (NOETL_WORKER_TOOLS) takes only offers made to it by id;
 * the others share their pool's broadcast (NOETL_WORKER_POOL).
 */
@Module({})
export class WorkerModule {
  static forRoot(config: NoetlConfig, workerId: string): DynamicModule {
    const tenant = offeredTenant(config);
    const controllers = config.nats ? [targetedOffersController(tenant, workerId), ...(config.worker.tools ? [] : [broadcastOffersController(tenant, config.worker.pool)])] : [];
    return { module: WorkerModule, controllers };
  }
}
