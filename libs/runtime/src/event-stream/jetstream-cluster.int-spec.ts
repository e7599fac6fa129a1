import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, connect, nanos, type NatsConnection } from 'nats';
import pino from 'pino';
import { Registry } from 'prom-client';
import { startNatsCluster, type NatsCluster } from '../../../../test/chaos/nats-cluster';
import { waitFor } from '../../../../test/support/wait-for';
import { ProjectorMetrics } from '../projection/projector-metrics';
import { projectorDurable, StreamProjector } from '../projection/stream-projector';
import { requireNats } from '../../../../test/support/services';
import { EVENTS_STREAM, ensureEventStream, replicasOn } from './event-stream';
import { shardFilter } from './event-subjects';

jest.setTimeout(120_000);

const LIMITS = { maxAgeMs: 3_600_000, maxBytes: 1024 ** 3, duplicateWindowMs: 120_000 };

/**
 * The events stream and the projector's consumers on a 3-node JetStream
 * cluster of the test's own (issue 29): created with NOETL_JETSTREAM_REPLICAS
 * copies, and moved to that count in place when they exist with another; a
 * consumer that is gone is made again.
 */
describe('JetStream replicas on a 3-node cluster', () => {
  let home: string;
  let cluster: NatsCluster;
  let nc: NatsConnection;

  /** Shard 0 of 1 of a projector at R3 over `scopes`, each event it folds by id into `folded`. */
  const projectorOf = (scopes: { tenantId: string; organizationId: string }[], folded: string[] = []): StreamProjector =>
    new StreamProjector({
      nats: nc,
      project: async (events) => void folded.push(...events.map((event) => event.event_id)),
      flush: async () => undefined,
      scopes: async () => scopes,
      metrics: new ProjectorMetrics(new Registry()),
      logger: pino({ level: 'silent' }),
      shardIndex: 0,
      shardCount: 1,
      replicas: 3,
    });

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'noetl-js-cluster-'));
    cluster = await startNatsCluster(home, 3);
    nc = await connect({ servers: cluster.url.split(',') });
  });

  afterAll(async () => {
    await nc?.close();
    await cluster?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('asks 3 replicas of a cluster, and 1 of a server that is not clustered (which refuses more)', async () => {
    const single = await connect({ servers: await requireNats() });
    try {
      expect([replicasOn(nc, 3), replicasOn(nc, 1), replicasOn(single, 3), replicasOn(single, 1)]).toEqual([3, 1, 1, 1]);
      // What the runtime would meet without it: the single server refuses an R3 stream.
      const jsm = await single.jetstreamManager();
      await expect(
        jsm.streams.add({ name: `R3_REFUSED_${process.pid}`, subjects: [`noetl-test.r3-refused.${process.pid}`], num_replicas: 3 }),
      ).rejects.toThrow('replicas > 1 not supported in non-clustered mode');
    } finally {
      await single.close();
    }
  });

  it('moves an existing R1 events stream to R3 in place, keeping its messages', async () => {
    const jsm = await nc.jetstreamManager();
    await ensureEventStream(jsm, LIMITS);
    expect((await jsm.streams.info(EVENTS_STREAM)).config.num_replicas).toBe(1);
    await nc.jetstream().publish('noetl.events.t.o.1.0', new TextEncoder().encode('{}'), { msgID: 'e1' });

    await ensureEventStream(jsm, { ...LIMITS, replicas: 3 });
    const info = await waitFor(
      async () => {
        const now = await jsm.streams.info(EVENTS_STREAM);
        return now.cluster?.leader && now.cluster.replicas?.length === 2 && now.cluster.replicas.every((r) => r.current) ? now : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'the stream on 3 current nodes' },
    );
    expect(info.config.num_replicas).toBe(3);
    expect(new Set([info.cluster!.leader, ...info.cluster!.replicas!.map((r) => r.name)])).toEqual(new Set(['n1', 'n2', 'n3']));
    expect(info.state.messages).toBe(1);
  });

  it("creates a projector shard's consumer with the replica count, and moves an existing one to it", async () => {
    const jsm = await nc.jetstreamManager();
    await ensureEventStream(jsm, { ...LIMITS, replicas: 3 });
    const fresh = { tenantId: 'fresh', organizationId: 'o' };
    const existing = { tenantId: 'existing', organizationId: 'o' };
    // A consumer made before the setting (R1): it must keep its name and acks, and get 3 copies.
    await jsm.consumers.add(EVENTS_STREAM, {
      durable_name: projectorDurable(existing, 0, 1),
      filter_subject: shardFilter(0, existing),
      ack_policy: AckPolicy.Explicit,
      num_replicas: 1,
    });
    const projector = projectorOf([fresh, existing]);
    projector.start();
    try {
      const replicas = await waitFor(
        async () => {
          const infos = await Promise.all(
            [fresh, existing].map((scope) => jsm.consumers.info(EVENTS_STREAM, projectorDurable(scope, 0, 1))),
          );
          return infos.every((info) => info.config.num_replicas === 3 && info.cluster?.replicas?.length === 2)
            ? infos.map((info) => info.config.num_replicas)
            : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200, description: 'both consumers at R3' },
      );
      expect(replicas).toEqual([3, 3]);
    } finally {
      await projector.stop();
    }
  });

  it('a delivery lost in transit (its node killed as it was sent) is delivered again within seconds, not the minute it took', async () => {
    const jsm = await nc.jetstreamManager();
    await ensureEventStream(jsm, { ...LIMITS, replicas: 3 });
    const scope = { tenantId: 'lost', organizationId: 'o' };
    const durable = projectorDurable(scope, 0, 1);
    const folded: string[] = [];
    const shard = (): StreamProjector => projectorOf([scope], folded);
    const first = shard();
    first.start();
    await waitFor(() => jsm.consumers.info(EVENTS_STREAM, durable), {
      timeoutMs: 30_000,
      intervalMs: 100,
      description: 'the shard consumer',
    });
    await first.stop();
    await nc.jetstream().publish('noetl.events.lost.o.9.0', new TextEncoder().encode(JSON.stringify({ event_id: 'lost-in-transit' })), {
      msgID: 'lost-in-transit',
    });
    // Delivered, and never acked nor refused: what JetStream sees when the delivery dies with its node.
    // (The stopped shard's last pull may still wait on the server for a moment, and take it first: that is a lost delivery too, redelivered after the ack wait.)
    const raw = await nc.jetstream().consumers.get(EVENTS_STREAM, durable);
    const lost = await waitFor(
      async () => {
        const got: string[] = [];
        for await (const message of await raw.fetch({ max_messages: 1, expires: 1_000 })) got.push(message.string());
        return got.length === 1 ? got : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 0, description: 'the delivery to drop' },
    );
    expect(lost).toHaveLength(1);
    const second = shard();
    second.start();
    try {
      await waitFor(async () => folded.includes('lost-in-transit'), {
        timeoutMs: 20_000,
        intervalMs: 100,
        description: 'the lost delivery folded',
      });
    } finally {
      await second.stop();
    }
  });

  it('a projector shard whose consumer is gone (deleted, or lost with its JetStream state) makes it again and goes on folding', async () => {
    const jsm = await nc.jetstreamManager();
    await ensureEventStream(jsm, { ...LIMITS, replicas: 3 });
    const scope = { tenantId: 'regone', organizationId: 'o' };
    const durable = projectorDurable(scope, 0, 1);
    const folded: string[] = [];
    const projector = projectorOf([scope], folded);
    const publish = (eventId: string) =>
      nc
        .jetstream()
        .publish('noetl.events.regone.o.7.0', new TextEncoder().encode(JSON.stringify({ event_id: eventId })), { msgID: eventId });
    projector.start();
    try {
      await publish('before');
      await waitFor(async () => folded.includes('before'), { timeoutMs: 30_000, intervalMs: 100, description: 'the first event folded' });
      await jsm.consumers.delete(EVENTS_STREAM, durable);
      await publish('after');
      await waitFor(async () => folded.includes('after'), {
        timeoutMs: 30_000,
        intervalMs: 100,
        description: 'an event published after the consumer was deleted, folded',
      });
      expect((await jsm.consumers.info(EVENTS_STREAM, durable)).config.num_replicas).toBe(3);
    } finally {
      await projector.stop();
    }
  });

  it('the relay taking the lead again leaves a stream as configured alone, and brings one whose limits differ to them', async () => {
    const jsm = await nc.jetstreamManager();
    await ensureEventStream(jsm, { ...LIMITS, replicas: 3 });
    let updates = 0;
    const advisories = nc.subscribe(`$JS.EVENT.ADVISORY.STREAM.UPDATED.${EVENTS_STREAM}`, { callback: () => void updates++ });
    try {
      await nc.flush();
      // As after every JetStream fault: an update would re-propose the stream's assignment while its raft group may be recovering.
      await ensureEventStream(jsm, { ...LIMITS, replicas: 3 });
      await ensureEventStream(jsm, { ...LIMITS, maxAgeMs: 2 * LIMITS.maxAgeMs, replicas: 3 });
      await waitFor(async () => updates > 0 || undefined, { timeoutMs: 10_000, description: "the change's advisory" });
      // The server sends its advisories in order, a moment apart: one the unchanged call caused would be here now, or in a moment.
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(updates).toBe(1);
      expect((await jsm.streams.info(EVENTS_STREAM)).config.max_age).toBe(nanos(2 * LIMITS.maxAgeMs));
    } finally {
      advisories.unsubscribe();
    }
  });
});
