import 'reflect-metadata';
import { loadConfig } from '@noetl/config';
import { AppRootModule, bootRole, createLogger } from '@noetl/platform';
import { ProjectorModule } from './projector.module';

/** The projector as a service of its own: only the projector role (probes and metrics; its projections come later). */
async function main(): Promise<void> {
  const config = { ...loadConfig(process.env), roles: ['projector' as const] };
  await bootRole('projector', config, AppRootModule.forRoot(config, () => [{ module: ProjectorModule }]));
  createLogger(config.log, 'projector').warn('the projector role folds no projections yet; this process serves its probes only');
}

void main().catch((error: unknown) => {
  process.stderr.write(`projector: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
