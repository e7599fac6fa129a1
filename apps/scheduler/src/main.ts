import 'reflect-metadata';
import { loadConfig } from '@noetl/config';
import { AppRootModule, bootRole } from '@noetl/platform';
import { SchedulerModule } from '../../../libs/roles/src/scheduler/scheduler.module';

/** The scheduler as a service of its own: only the scheduler role, whatever NOETL_ROLES says. */
async function main(): Promise<void> {
  const config = { ...loadConfig(process.env), roles: ['scheduler' as const] };
  await bootRole(
    'scheduler',
    config,
    AppRootModule.forRoot(config, (loaded) => [SchedulerModule.forRoot(loaded)]),
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`scheduler: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
