import { waitFor } from '../../support/wait-for';
import { hold, pick, type Scenario } from '../scenario';
import { startChaosServices, type ChaosServices } from '../services';
import { TcpProxy, type PartitionMode } from '../tcp-proxy';

/** The two links a proxy sits on: workers -> api (their control plane), api -> PostgreSQL (its pool). */
interface Links {
  workers?: TcpProxy;
  database: TcpProxy;
}

/**
 * How long after the trial a client may still hold a connection the
 * partition left dead: its own timeout (a pooled query's, a worker call's)
 * or its pool's idle timeout must have closed it by then.
 */
const STRANDED_DEADLINE_MS = 60_000;

/** Each partitioned deployment's proxies, by its services. */
const linksOf = new WeakMap<ChaosServices, Links>();

/**
 * The harness's services with a proxy on each link that the fault cuts:
 * the api's `DATABASE_URL` goes through one to PostgreSQL, and the workers'
 * `NOETL_SERVER_URL` through another to the api (made when the deployment
 * names the api's port). The scheduler, the projector, the harness itself
 * and the workers' postgres steps reach PostgreSQL directly.
 */
async function partitionableServices(home: string): Promise<ChaosServices> {
  const services = await startChaosServices(home);
  const postgres = new URL(services.postgres.url);
  const links: Links = { database: await TcpProxy.start(Number(postgres.port)) };
  const proxied = new URL(services.postgres.url);
  proxied.port = String(links.database.port);
  const partitioned: ChaosServices = {
    ...services,
    roleEnv: async (apiPort) => {
      links.workers ??= await TcpProxy.start(apiPort);
      return {
        // A statement a blackhole swallowed fails after 5 s (default 60 s), as the deployment's leases are short for a trial of seconds.
        api: { DATABASE_URL: proxied.toString(), NOETL_DB_QUERY_TIMEOUT_MS: '5000' },
        worker: { NOETL_SERVER_URL: `http://127.0.0.1:${links.workers.port}` },
      };
    },
    close: async () => {
      await Promise.all([links.workers?.close(), links.database.close()]);
      await services.close();
    },
  };
  linksOf.set(partitioned, links);
  return partitioned;
}

/**
 * A network partition on the workers' link to the api, the api's link to
 * PostgreSQL, or both, for 5-20 s (2-4 s in the smoke): `drop` resets every
 * connection and refuses new ones; `blackhole` answers nothing and closes
 * nothing, so only the runtime's own timeouts (its pool's query timeout, the
 * worker's per-call timeout, leases) get it out. At heal, the connections a
 * blackhole caught either resume (a short partition, TCP retransmits) or
 * stay dead for good (a lost NAT or conntrack entry), as the seed chooses.
 */
export const networkPartition: Scenario = {
  name: 'network-partition',
  description: 'the workers->api and/or api->PostgreSQL link dropped (reset) or blackholed (silent) for 5-20 s, then healed',
  steady: true,
  services: partitionableServices,
  async inject({ services, random, smoke, log }) {
    const links = linksOf.get(services);
    if (!links?.workers) throw new Error('network-partition runs on its own services, whose proxies the deployment made');
    const which = pick(random, ['workers', 'database', 'both'] as const);
    const mode = pick<PartitionMode>(random, ['drop', 'blackhole']);
    const stalled = pick(random, ['resume', 'dead'] as const);
    const ms = smoke ? 2_000 + Math.floor(random() * 2_000) : 5_000 + Math.floor(random() * 15_000);
    const cut = which === 'both' ? [links.workers, links.database] : [links[which]!];
    log(
      `${mode} of ${which === 'both' ? 'workers->api and api->postgres' : which === 'workers' ? 'workers->api' : 'api->postgres'} for ${ms} ms${mode === 'blackhole' ? `, caught connections ${stalled === 'dead' ? 'dead' : 'resumed'} at heal` : ''}`,
    );
    for (const proxy of cut) {
      if (mode === 'drop') proxy.drop();
      else proxy.blackhole();
    }
    await hold(ms);
    for (const proxy of cut) proxy.heal({ stalled });
    log('healed');
  },
  /**
   * No client is left waiting on a dead connection: a pool's query or a
   * worker's call that would never be answered was timed out and its
   * connection closed (else it holds a pool slot, a request and the work
   * behind them for good, and every partition takes more).
   */
  async check({ services }) {
    const links = linksOf.get(services);
    const named = [
      ['workers->api', links?.workers],
      ['api->postgres', links?.database],
    ] as const;
    const stranded = (): string[] =>
      named
        .filter(([, proxy]) => (proxy?.stranded ?? 0) > 0)
        .map(([name, proxy]) => `${proxy!.stranded} ${name} connection(s) still waiting on a dead link`);
    await waitFor(async () => stranded().length === 0, {
      timeoutMs: STRANDED_DEADLINE_MS,
      intervalMs: 250,
      description: 'no connection stranded on a dead link',
    }).catch(() => undefined);
    return stranded().map((text) => `${text} ${STRANDED_DEADLINE_MS / 1000} s after the trial`);
  },
};
