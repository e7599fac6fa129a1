import 'reflect-metadata';
import { loadConfig } from '@noetl/config';
import { AppRootModule, bootRole } from '@noetl/platform';
import { WorkerModule } from './worker.module';

/**
 * The worker as a service of its own: only the worker role. With
 * NOETL_SERVER_URL it reports to that API (it never decrypts a credential
 * itself); without, straight to the database.
 */
async function main(): Promise<void> {
  const config = { ...loadConfig(process.env), roles: ['worker' as const] };
  await bootRole('worker', config, AppRootModule.forRoot(config, (loaded, workerId) => [WorkerModule.forRoot(loaded, workerId)]));
}

void main().catch((error: unknown) => {
  process.stderr.write(`worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
