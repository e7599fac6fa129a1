import { readKeyFile, type NoetlConfig, type Role } from '@noetl/config';
import { HttpControlPlane } from './control-plane/http-control-plane';

/**
 * The adapters behind the runtime's two transport ports (DESIGN.md s3
 * "Modular monolith, then microservices"): what the configuration names is
 * chosen here, so nothing above the ports knows which one runs.
 */

/**
 * The HTTP control plane when `config.server` is set (a worker in its own
 * process), else undefined: the caller then uses the in-process one on its
 * database. It presents NOETL_API_KEY, else the worker key kept in
 * NOETL_HOME/worker.key (`noetl keys bootstrap --generate`). The caller
 * closes it (`close()` frees its keep-alive connections).
 */
export function createRemoteControlPlane(config: NoetlConfig): HttpControlPlane | undefined {
  if (!config.server) return undefined;
  const apiKey = config.client.apiKey?.reveal() ?? readKeyFile(config.home, 'worker');
  return new HttpControlPlane(config.server.url, apiKey ? { apiKey } : {});
}

/**
 * Whose offers a worker takes: on the API's control plane (NOETL_SERVER_URL
 * without the api role) its key's tenant, NOETL_TENANT_ID (offers of other
 * tenants are for their own workers); in-process, every tenant's (`*`).
 */
export function offeredTenant(config: NoetlConfig, roles: readonly Role[] = config.roles): string {
  return config.server && roles.includes('worker') && !roles.includes('api') ? config.tenancy.tenantId : '*';
}
