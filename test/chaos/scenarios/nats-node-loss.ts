import { connect, type JetStreamManager } from 'nats';
import { Client } from 'pg';
import { EVENTS_STREAM } from '../../../libs/runtime/src/event-stream/event-stream';
import { EVENTS_SUBJECT_PREFIX } from '../../../libs/runtime/src/event-stream/event-subjects';
import { projectorDurable } from '../../../libs/runtime/src/projection/stream-projector';
import { waitFor } from '../../support/wait-for';
import { startNatsCluster, type NatsCluster } from '../nats-cluster';
import { hold, pick, type Scenario } from '../scenario';
import { withPostgresAndRedis } from '../services';

const REPLICAS = '3';
/** The tenant of the harness's deployment (cluster.ts). */
const TENANT = 'chaos';

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
  description:
    "3-node JetStream cluster (R3): a node SIGKILLed, then the events stream's leader, both restarted after 10 s (2 s in the smoke)",
  steady: true,
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
    const leaderName = await waitFor(
      async () => {
        const name = await cluster!.streamLeader(EVENTS_STREAM);
        return name && name !== first.name ? name : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'a leader of the events stream among the survivors' },
    );
    await hold(smoke ? 500 : 1_000 + Math.floor(random() * 3_000));
    const leader = nodes.find((node) => node.name === leaderName)!;
    log(`SIGKILL ${leader.name}, the events stream's leader now`);
    await leader.kill();
    await hold(smoke ? 2_000 : 10_000);
    await first.start();
    await leader.start();
    const restarted = Date.now();
    // The fault lasts until JetStream serves the stream and its consumers again (the nodes replay their raft logs, elect leaders): the runtime's catch-up is what follows.
    await cluster.ready();
    await cluster.streamWhole(EVENTS_STREAM);
    log(
      `${first.name} and ${leader.name} back; the events stream led by ${(await cluster.streamLeader(EVENTS_STREAM)) ?? 'none'}, it and its consumers whole ${Date.now() - restarted} ms after the restart`,
    );
  },
  /**
   * The deployment ran on what the scenario is about: the stream and every
   * projector consumer on all 3 nodes. And the relay followed the cluster:
   * the stream holds each of the trial's events once (none lost in the
   * leader changes, none published twice past the message-id dedup).
   */
  async check({ databaseUrl, executionIds }) {
    if (!cluster) return ['nats-node-loss ran without its cluster'];
    const nc = await connect({ servers: cluster.url.split(','), timeout: 2_000, reconnect: false });
    try {
      const jsm = await nc.jetstreamManager({ timeout: 5_000 });
      const stream = await jsm.streams.info(EVENTS_STREAM);
      // The deployment's one projector shard, of the harness's tenant.
      const durable = projectorDurable({ tenantId: TENANT, organizationId: 'default' }, 0, 1);
      const consumer = await waitFor(() => jsm.consumers.info(EVENTS_STREAM, durable), {
        timeoutMs: 10_000,
        intervalMs: 250,
        description: `consumer ${durable}`,
      }).catch((error: unknown) => String(error));
      const violations = typeof consumer === 'string' ? [`the projector's consumer: ${consumer}`] : [];
      for (const info of typeof consumer === 'string' ? [stream] : [stream, consumer]) {
        const what = 'durable_name' in info.config ? `consumer ${info.config.durable_name}` : 'the events stream';
        if (info.config.num_replicas !== Number(REPLICAS))
          violations.push(`${what} has ${info.config.num_replicas} replica(s), not ${REPLICAS}`);
      }
      // The relay publishes what is committed a moment after: its last batch may still be on the way.
      const compare = async (): Promise<string[]> => {
        const [ledger, streamed] = [await ledgerCounts(databaseUrl, executionIds), await streamCounts(jsm, executionIds)];
        return executionIds
          .filter((id) => (streamed.get(id) ?? 0) !== (ledger.get(id) ?? 0))
          .map((id) => `${id}: ${ledger.get(id) ?? 0} events in the ledger, ${streamed.get(id) ?? 0} messages in the stream`);
      };
      const differ = await waitFor(async () => ((await compare()).length === 0 ? [] : undefined), {
        timeoutMs: 20_000,
        intervalMs: 250,
        description: 'the stream holding every event of the trial once',
      }).catch(compare);
      return [...violations, ...differ];
    } finally {
      await nc.close();
    }
  },
};

async function ledgerCounts(databaseUrl: string, executionIds: string[]): Promise<Map<string, number>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; n: number }>(
      'SELECT execution_id::text AS id, count(*)::int AS n FROM noetl.event WHERE execution_id = ANY($1::bigint[]) GROUP BY 1',
      [executionIds],
    );
    return new Map(rows.map((row) => [row.id, row.n]));
  } finally {
    await client.end();
  }
}

/** Messages per execution in the events stream (the execution is the subject's third token after the prefix). */
async function streamCounts(jsm: JetStreamManager, executionIds: string[]): Promise<Map<string, number>> {
  const wanted = new Set(executionIds);
  const { state } = await jsm.streams.info(EVENTS_STREAM, { subjects_filter: `${EVENTS_SUBJECT_PREFIX}.>` });
  const counts = new Map<string, number>();
  for (const [subject, n] of Object.entries(state.subjects ?? {})) {
    const id = subject.split('.')[4];
    if (id && wanted.has(id)) counts.set(id, (counts.get(id) ?? 0) + n);
  }
  return counts;
}
