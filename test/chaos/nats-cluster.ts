import { join } from 'node:path';
import { connect, StorageType, type NatsConnection } from 'nats';
import { freePort } from '../support/cli-server-process';
import { waitFor } from '../support/wait-for';
import { startDaemon, type KillableService, type RestartableService } from './services';

const NATS_SERVER = '/usr/sbin/nats-server';

/** One node of the cluster: its `server_name`, and its process on its own client port, cluster port and store. */
export interface NatsNode extends KillableService {
  readonly name: string;
}

/**
 * A JetStream cluster of nats-server processes: `url` is the comma list of
 * their client URLs (as NATS_URL takes it); stop and start act on every node.
 */
export interface NatsCluster extends RestartableService {
  readonly nodes: NatsNode[];
  /** The `server_name` of the node that leads `stream`'s raft group now; undefined while it has none (an election, no quorum). */
  streamLeader(stream: string): Promise<string | undefined>;
  /**
   * Resolves once `stream`, and each of its consumers, has a leader and every
   * other node holds a current replica of it (JetStream serves them again).
   */
  streamWhole(stream: string, timeoutMs?: number): Promise<void>;
  /** Resolves once JetStream places a stream on every node (a meta leader is elected and knows every peer). */
  ready(timeoutMs?: number): Promise<void>;
}

/**
 * Starts `size` nats-server nodes under `home`, each with JetStream on a
 * store of its own and routes to every other node, and returns once the
 * cluster has a JetStream meta leader.
 */
export async function startNatsCluster(home: string, size = 3): Promise<NatsCluster> {
  const clusterPorts: number[] = [];
  for (let i = 0; i < size; i++) clusterPorts.push(await freePort());
  const name = 'noetl-chaos';
  const nodes: NatsNode[] = [];
  try {
    for (let i = 0; i < size; i++) {
      const serverName = `n${i + 1}`;
      const routes = clusterPorts.filter((_, j) => j !== i).map((port) => `nats://127.0.0.1:${port}`);
      const daemon = await startDaemon(
        `nats-server ${serverName}`,
        join(home, serverName),
        (port, store) => [
          NATS_SERVER,
          [
            '--server_name',
            serverName,
            '-a',
            '127.0.0.1',
            '-p',
            String(port),
            '-js',
            '-sd',
            store,
            '--cluster_name',
            name,
            '--cluster',
            `nats://127.0.0.1:${clusterPorts[i]}`,
            '--routes',
            routes.join(','),
          ],
        ],
        'nats',
      );
      nodes.push(Object.assign(daemon, { name: serverName }));
    }
  } catch (error) {
    await Promise.all(nodes.map((node) => node.kill()));
    throw error;
  }
  const url = nodes.map((node) => node.url).join(',');
  const client = (): Promise<NatsConnection> =>
    connect({ servers: nodes.map((node) => node.url), timeout: 2_000, reconnect: false, name: 'noetl-chaos-harness' });
  const ask = async <T>(fn: (nc: NatsConnection) => Promise<T>): Promise<T> => {
    const nc = await client();
    try {
      return await fn(nc);
    } finally {
      await nc.close();
    }
  };
  const cluster: NatsCluster = {
    url,
    nodes,
    start: async () => {
      for (const node of nodes) await node.start();
      await cluster.ready();
    },
    stop: async () => {
      await Promise.all(nodes.map((node) => node.stop()));
    },
    ready: async (timeoutMs = 60_000) => {
      // A meta leader answers before it knows every peer ("no suitable peers for placement"): a probe stream on all nodes says it does.
      const probe = 'NOETL_CHAOS_READY';
      await waitFor(
        () =>
          ask(async (nc) => {
            const jsm = await nc.jetstreamManager({ timeout: 2_000 });
            await jsm.streams.add({
              name: probe,
              subjects: [`noetl-chaos.ready.${probe}`],
              storage: StorageType.Memory,
              num_replicas: size,
            });
            await jsm.streams.delete(probe);
            return true;
          }),
        { timeoutMs, intervalMs: 250, description: `JetStream placing a stream on all ${size} nodes of ${url}` },
      );
    },
    streamWhole: async (stream, timeoutMs = 60_000) => {
      await waitFor(
        () =>
          ask(async (nc) => {
            const jsm = await nc.jetstreamManager({ timeout: 2_000 });
            const groups = [
              (await jsm.streams.info(stream)).cluster,
              ...(await jsm.consumers.list(stream).next()).map((consumer) => consumer.cluster),
            ];
            return groups.every(
              (group) =>
                Boolean(group?.leader) && group?.replicas?.length === size - 1 && group.replicas.every((replica) => replica.current),
            );
          }),
        { timeoutMs, intervalMs: 100, description: `${stream} led and current on all ${size} nodes of ${url}` },
      );
    },
    streamLeader: (stream) =>
      ask(async (nc) => {
        const info = await (await nc.jetstreamManager({ timeout: 2_000 })).streams.info(stream);
        return info.cluster?.leader || undefined;
      }).catch(() => undefined),
  };
  try {
    await cluster.ready();
  } catch (error) {
    await Promise.all(nodes.map((node) => node.kill()));
    throw error;
  }
  return cluster;
}
