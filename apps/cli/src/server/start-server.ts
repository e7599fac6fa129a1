import 'reflect-metadata';
import type { NoetlConfig } from '@noetl/config';
import { bootRole } from '@noetl/platform';
import { startApi } from '../../../api/src/start-api';
import { EngineRolesModule } from './engine-roles.module';

/**
 * `noetl server`: every role of NOETL_ROLES in this one process (DESIGN.md s3
 * "Modular monolith"). With `api`, the Nest HTTP app, whose EngineModule runs
 * the other roles; without it, an application context with the probe server.
 * SIGTERM and SIGINT close it cleanly (the embedded PostgreSQL too).
 */
export async function startServer(config: NoetlConfig): Promise<void> {
  if (config.roles.includes('api')) {
    await startApi(config, 'noetl-server');
  } else {
    await bootRole('noetl-server', (loaded) => EngineRolesModule.forRoot(loaded));
  }
  process.stdout.write(`noetl server listening on :${config.http.port} (roles: ${config.roles.join(', ')})\n`);
}
