import 'reflect-metadata';
import { loadConfig } from '@noetl/config';
import { AppRootModule, assertWorkerReachesLedger, bootRole } from '@noetl/platform';
import { WorkerModule } from '../../../libs/roles/src/worker/worker.module';

/**
 * The worker as a service of its own: only the worker role. With
 * NOETL_SERVER_URL it reports to that API and opens no database (it never
 * decrypts a credential itself); without, it works on the ledger at
 * DATABASE_URL.
 */
async function main(): Promise<void> {
  const config = { ...loadConfig(process.env), roles: ['worker' as const] };
  assertWorkerReachesLedger(config);
  await bootRole(
    'worker',
    config,
    AppRootModule.forRoot(config, (loaded, workerId) => [WorkerModule.forRoot(loaded, workerId)]),
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
