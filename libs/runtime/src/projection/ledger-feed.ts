import { tailBacklog, type Database, type LeadershipRepository, type LedgerCursorRepository } from '@noetl/storage';
import type { Logger } from 'pino';
import { LedgerFollower } from '../event-stream/ledger-follower';
import type { FlushProjections, ProjectEvents } from './stream-projector';

/** The feed's name: its cursor and its lease. */
export const LEDGER_FEED = 'projector:*';
const BATCH = 500;

export interface LedgerFeedOptions {
  db: Database;
  cursors: LedgerCursorRepository;
  leadership: LeadershipRepository;
  project: ProjectEvents;
  flush: FlushProjections;
  logger: Logger;
  /** The safety-net poll; commits wake the feed at once. */
  pollMs: number;
}

/**
 * The projector's feed without NATS (issue 10, issue 23 item 1): it follows
 * the ledger's tail itself (LedgerFollower, one active feed per deployment)
 * and projects each batch in commit order before its cursor moves past it.
 * When the tail is drained, it writes the projection rows the projectors
 * deferred.
 */
export class LedgerFeed {
  private readonly follower: LedgerFollower;

  constructor(private readonly options: LedgerFeedOptions) {
    this.follower = new LedgerFollower({
      db: options.db,
      cursors: options.cursors,
      leadership: options.leadership,
      name: LEDGER_FEED,
      batch: BATCH,
      pollMs: options.pollMs,
      logger: options.logger,
      deliver: (events, connection) =>
        options
          .project(
            events.map(({ event }) => event),
            undefined,
            connection,
          )
          .then(() => undefined),
      idle: (connection) => options.flush({}, connection),
    });
  }

  start(): void {
    this.follower.start();
  }

  /** Events committed that the feed has not projected yet. */
  async lag(): Promise<number> {
    return (await tailBacklog(this.options.db, await this.follower.position())).events;
  }

  async stop(): Promise<void> {
    await this.follower.stop();
    await this.options.flush({ all: true });
  }
}
