import 'reflect-metadata';
import { bootRole } from '@noetl/platform';
import { ProjectorModule } from './projector.module';

void bootRole('projector', (config) => ProjectorModule.forRoot(config)).catch((error: unknown) => {
  process.stderr.write(`projector: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
