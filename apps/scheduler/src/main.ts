import 'reflect-metadata';
import { bootRole } from '@noetl/platform';
import { SchedulerModule } from './scheduler.module';

void bootRole('scheduler', (config) => SchedulerModule.forRoot(config)).catch((error: unknown) => {
  process.stderr.write(`scheduler: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
