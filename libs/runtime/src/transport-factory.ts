import type { NoetlConfig } from '@noetl/config';
import { HttpControlPlane } from './control-plane/http-control-plane';

/**
 * The adapters behind the runtime's two transport ports (DESIGN.md s3
 * "Modular monolith, then microservices"): what the configuration names is
 * chosen here, so nothing above the ports knows which one runs.
 */

/**
 * The HTTP control plane when `config.server` is set (a worker in its own
 * process), else undefined: the caller then uses the in-process one on its
 * database. The caller closes it (`close()` frees its keep-alive connections).
 */
export function createRemoteControlPlane(config: NoetlConfig): HttpControlPlane | undefined {
  return config.server ? new HttpControlPlane(config.server.url) : undefined;
}
