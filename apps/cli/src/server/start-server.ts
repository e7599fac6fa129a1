import 'reflect-metadata';
import type { NoetlConfig } from '@noetl/config';
import { AppRootModule, bootRole } from '@noetl/platform';
import { serverRoles, startApi } from '@noetl/roles';

/**
 * `noetl server`: every role of NOETL_ROLES in this one process, composed of
 * the same Nest modules the role apps run alone (DESIGN.md s3 "Modular
 * monolith"). With `api`, the Nest HTTP app; without it, the probe server.
 * With NATS_URL, the roles reach other processes over NATS. SIGTERM and
 * SIGINT close it cleanly: the worker drains, the embedded PostgreSQL stops.
 */
export async function startServer(config: NoetlConfig): Promise<void> {
  if (config.roles.includes('api')) {
    await startApi(config, 'noetl-server', serverRoles);
  } else {
    await bootRole('noetl-server', config, AppRootModule.forRoot(config, serverRoles));
  }
  process.stdout.write(`noetl server listening on :${config.http.port} (roles: ${config.roles.join(', ')})\n`);
}
