import type { NoetlConfig } from '@noetl/config';
import type { DynamicModule } from '@nestjs/common';
import { ApiModule } from './api/api.module';
import { ProjectorModule } from './projector/projector.module';
import { SchedulerModule } from './scheduler/scheduler.module';
import { WorkerModule } from './worker/worker.module';

/** The role modules of NOETL_ROLES, as `noetl server` runs them in one process (DESIGN.md s3 "Modular monolith"). */
export function serverRoles(config: NoetlConfig, workerId: string): DynamicModule[] {
  const modules: Record<NoetlConfig['roles'][number], () => DynamicModule> = {
    api: () => ApiModule.forRoot(),
    scheduler: () => SchedulerModule.forRoot(config),
    worker: () => WorkerModule.forRoot(config, workerId),
    projector: () => ({ module: ProjectorModule }),
  };
  return config.roles.map((role) => modules[role]());
}
