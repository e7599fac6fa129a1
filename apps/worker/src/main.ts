import 'reflect-metadata';
import { bootRole } from '@noetl/platform';
import { WorkerModule } from './worker.module';

void bootRole('worker', (config) => WorkerModule.forRoot(config)).catch((error: unknown) => {
  process.stderr.write(`worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
