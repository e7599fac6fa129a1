import type { NoetlConfig } from '@noetl/config';
import type { Database } from '@noetl/storage';
import { connect, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { NATS_RECONNECT_FOREVER } from '../bus/nats-reconnect';
import { streamReplicas } from '../event-stream/event-stream';
import type { Repositories } from '../tenants/shared-parts';
import { LedgerFeed } from './ledger-feed';
import type { ProjectorMetrics } from './projector-metrics';
import { StreamProjector, type FlushProjections, type ProjectEvents } from './stream-projector';

/**
 * What feeds the projector role its events: JetStream with NATS (this
 * shard's consumers, on a connection of its own, `nats`), the ledger's tail
 * without. Either calls `project` with the events and `flush` when due.
 */
export async function openProjectorFeed(parts: {
  config: NoetlConfig;
  database: Database;
  repositories: Pick<Repositories, 'tenantRows' | 'ledgerCursors' | 'leadership'>;
  metrics: ProjectorMetrics;
  logger: Logger;
  /** The NATS connection's name. */
  name: string;
  project: ProjectEvents;
  flush: FlushProjections;
}): Promise<{ feed: LedgerFeed | StreamProjector; nats?: NatsConnection }> {
  const { config, database, repositories, project, flush } = parts;
  const { shardIndex, shardCount } = config.projector;
  const logger = parts.logger.child({ role: 'projector', shard: shardIndex });
  if (!config.nats) {
    const feed = new LedgerFeed({
      db: database,
      cursors: repositories.ledgerCursors,
      leadership: repositories.leadership,
      project,
      flush,
      logger,
      pollMs: config.relay.pollMs,
    });
    return { feed };
  }
  const nats = await connect({ servers: config.nats.servers, name: parts.name, ...NATS_RECONNECT_FOREVER });
  // One consumer per tenant the deployment has: each shard folds only its tenants' events, never another deployment's on the same NATS.
  const scopes = () => repositories.tenantRows.list(database);
  const replicas = streamReplicas(nats, config.nats.replicas, logger);
  return {
    feed: new StreamProjector({ nats, project, flush, scopes, metrics: parts.metrics, logger, shardIndex, shardCount, replicas }),
    nats,
  };
}
