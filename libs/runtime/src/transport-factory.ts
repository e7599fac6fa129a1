import type { NoetlConfig } from '@noetl/config';
import type { Logger } from 'pino';
import type { Bus } from './bus/bus';
import { InProcessBus } from './bus/in-process-bus';
import { NatsBus } from './bus/nats-bus';
import { HttpControlPlane } from './control-plane/http-control-plane';

/**
 * The adapters behind the runtime's two transport ports (DESIGN.md s3
 * "Modular monolith, then microservices"): what the configuration names is
 * chosen here, so nothing above the ports knows which one runs.
 */

/**
 * NATS when `config.nats` is set (separate services), else the in-process bus
 * (the monolith). Rejects when NATS is unreachable: a service that cannot hear
 * its peers should not report ready. The caller closes the bus.
 */
export async function createBus(config: NoetlConfig, logger?: Logger): Promise<Bus> {
  if (!config.nats) return new InProcessBus();
  return NatsBus.connect(config.nats.url, {
    name: `noetl-${config.roles.join('+')}`,
    // Swallowed by the bus (a lost notification only delays work until a sweep), so logged here.
    onError: (error, context) => logger?.warn({ err: error, ...context }, `NATS bus: ${context.operation} failed`),
  });
}

/**
 * The HTTP control plane when `config.server` is set (a worker in its own
 * process), else undefined: the caller then uses the in-process one on its
 * database. The caller closes it (`close()` frees its keep-alive connections).
 */
export function createRemoteControlPlane(config: NoetlConfig): HttpControlPlane | undefined {
  return config.server ? new HttpControlPlane(config.server.url) : undefined;
}
