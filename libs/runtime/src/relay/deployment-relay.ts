import type { NoetlConfig } from '@noetl/config';
import { LeadershipRepository, LedgerCursorRepository, tailBacklog, TAIL_START, type Database } from '@noetl/storage';
import { connect } from 'nats';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { NATS_RECONNECT_FOREVER } from '../bus/nats-reconnect';
import { streamReplicas } from '../event-stream/event-stream';
import { EventRelay, relayName } from './event-relay';
import { RelayMetrics } from './relay-metrics';

/** The relay a deployment runs, for every tenant, while its process lives. */
export interface DeploymentRelay {
  /** Events committed that it has not published yet. */
  backlog(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the deployment's event relay as the scheduler role runs it with
 * NATS (its Nest module, libs/roles/src/relay; the replay gate, which runs
 * no Nest app): on a JetStream connection of its own, its metrics on the
 * process's registry. Only one of a deployment's relays publishes at a time
 * (EventRelay's lease); the others wait to take over.
 */
export async function startDeploymentRelay(parts: {
  config: NoetlConfig & { nats: NonNullable<NoetlConfig['nats']> };
  database: Database;
  registry: Registry;
  logger: Logger;
}): Promise<DeploymentRelay> {
  const { config, database } = parts;
  const logger = parts.logger.child({ role: 'relay' });
  const nats = await connect({ servers: config.nats.servers, name: 'noetl-relay', ...NATS_RECONNECT_FOREVER });
  const cursors = new LedgerCursorRepository();
  const backlog = async () => tailBacklog(database, (await cursors.get(database, relayName())) ?? TAIL_START);
  const relay = new EventRelay({
    db: database,
    cursors,
    leadership: new LeadershipRepository(),
    js: nats.jetstream(),
    // No account check here: JetStream may be electing a leader (or without quorum) as the scheduler starts; the relay makes the stream when it leads, and retries.
    jsm: await nats.jetstreamManager({ checkAPI: false }),
    shardCount: config.projector.shardCount,
    batch: config.relay.batch,
    pollMs: config.relay.pollMs,
    limits: { ...config.relay.stream, replicas: streamReplicas(nats, config.nats.replicas, logger) },
    logger,
    metrics: new RelayMetrics(parts.registry, backlog),
  });
  relay.start();
  return {
    backlog: async () => (await backlog()).events,
    stop: async () => {
      await relay.stop();
      await nats.close();
    },
  };
}
