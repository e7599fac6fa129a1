import 'reflect-metadata';
import { loadConfig } from '@noetl/config';
import { AppRootModule, bootRole } from '@noetl/platform';
import { ProjectorModule } from '../../../libs/roles/src/projector/projector.module';

/**
 * The projector as a service of its own: only the projector role. The
 * engine it boots folds the ledger into the projection rows (from
 * JetStream with NATS_URL, else from the ledger's tail), its shard of them
 * by NOETL_PROJECTOR_SHARD_INDEX / _COUNT; this process serves its probes
 * and metrics beside it.
 */
async function main(): Promise<void> {
  const config = { ...loadConfig(process.env), roles: ['projector' as const] };
  await bootRole(
    'projector',
    config,
    AppRootModule.forRoot(config, () => [{ module: ProjectorModule }]),
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`projector: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
