import { connect } from 'nats';
import { EVENTS_STREAM } from '../../../libs/runtime/src/event-stream/event-stream';
import { waitFor } from '../../support/wait-for';
import { startNatsCluster, type NatsCluster } from '../nats-cluster';
import { hold, pick, type Scenario } from '../scenario';
import { withPostgresAndRedis } from '../services';

const REPLICAS = '3';

/** The cluster of the scenario's own services (one run starts them once). */
let cluster: NatsCluster | undefined;

/**
 * A 3-node JetStream cluster with the events stream and the projector's
 * consumers at R3: one node SIGKILLed, then, once the stream has a leader
 * among the other two, the node that leads it (quorum is lost: the cluster
 * answers no JetStream request), then both started again on their ports and stores.
 */
export const natsNodeLoss: Scenario = {
  name: 'nats-node-loss',
  description: '3-node JetStream cluster (R3): a node SIGKILLed, then the events stream\'s leader, both restarted after 10 s (2 s in the smoke)',
  async services(home) {
    cluster = await startNatsCluster(home, 3);
    const services = await withPostgresAndRedis(home, cluster);
    return {
      ...services,
      roleEnv: async () => {
        const env = { NOETL_JETSTREAM_REPLICAS: REPLICAS };
        return { api: env, scheduler: env, worker: env, projector: env, server: env };
      },
    };
  },
  async inject({ random, smoke, log }) {
    if (!cluster) throw new Error('nats-node-loss runs on its own services');
    const { nodes } = cluster;
    const first = pick(random, nodes);
    const before = await cluster.streamLeader(EVENTS_STREAM);
    log(`SIGKILL ${first.name} (the events stream's leader: ${before ?? 'none'})`);
    await first.kill();
    // The survivors elect a leader if the first was it: that is the leader change under way.
    const leaderName = await waitFor(async () => {
      const name = await cluster!.streamLeader(EVENTS_STREAM);
      return name && name !== first.name ? name : undefined;
    }, { timeoutMs: 30_000, intervalMs: 100, description: 'a leader of the events stream among the survivors' });
    await hold(smoke ? 500 : 1_000 + Math.floor(random() * 3_000));
    const leader = nodes.find((node) => node.name === leaderName)!;
    log(`SIGKILL ${leader.name}, the events stream's leader now`);
    await leader.kill();
    await hold(smoke ? 2_000 : 10_000);
    await first.start();
    await leader.start();
    await cluster.ready();
    log(`${first.name} and ${leader.name} back; the stream's leader: ${(await cluster.streamLeader(EVENTS_STREAM)) ?? 'none yet'}`);
  },
  /** The deployment ran on what the scenario is about: the stream and every projector consumer on all 3 nodes. */
  async check() {
    if (!cluster) return ['nats-node-loss ran without its cluster'];
    const nc = await connect({ servers: cluster.url.split(','), timeout: 2_000, reconnect: false });
    try {
      const jsm = await nc.jetstreamManager({ timeout: 5_000 });
      const stream = await jsm.streams.info(EVENTS_STREAM);
      const consumers = await jsm.consumers.list(EVENTS_STREAM).next();
      const violations = [stream, ...consumers]
        .filter((info) => info.config.num_replicas !== Number(REPLICAS))
        .map((info) => `${'durable_name' in info.config ? `consumer ${info.config.durable_name}` : 'the events stream'} has ${info.config.num_replicas} replica(s), not ${REPLICAS}`);
      if (consumers.length === 0) violations.push('the projector made no consumer');
      return violations;
    } finally {
      await nc.close();
    }
  },
};
