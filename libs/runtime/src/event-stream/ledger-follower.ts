import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  readTail,
  TAIL_START,
  type Database,
  type DedicatedConnection,
  type LeadershipRepository,
  type LedgerCursorRepository,
  type Queryable,
  type TailEvent,
  type TailPosition,
  type TenantScope,
} from '@noetl/storage';
import type { Logger } from 'pino';

/** The channel a trigger notifies when events commit (migration LedgerTail). */
export const EVENTS_CHANNEL = 'noetl_events';

export interface LedgerFollowerOptions {
  db: Database;
  cursors: LedgerCursorRepository;
  leadership: LeadershipRepository;
  /** The reader's name: its cursor in `noetl.ledger_cursor` and its lease in `noetl.leadership` (one active reader per name). */
  name: string;
  /** Only this tenant's organization's events; absent: every tenant's. */
  scope?: TenantScope;
  batch: number;
  /** The safety-net poll; commits wake the reader at once. */
  pollMs: number;
  logger: Logger;
  /**
   * Takes a batch in commit order; resolves once it is delivered, and the
   * cursor moves past it. A rejection has it delivered again. `connection`
   * is the reader's own (a consumer that writes to the database may write
   * through it, out of the pool's queue).
   */
  deliver(events: readonly TailEvent[], connection: Queryable): Promise<void>;
  /** Before each term as the active reader (the relay makes sure its stream exists). */
  beforeLeading?(): Promise<void>;
  /** After each round that drained the tail, with the reader's connection. */
  idle?(connection: Queryable): Promise<void>;
  /** Whether this process is the active reader now. */
  leading?(leads: boolean): void;
  /** A round failed; it is retried after a backoff. */
  failed?(error: unknown): void;
}

/** How often a reader that does not lead tries to take over. */
const TAKEOVER_MS = 2_000;
/**
 * How long a reader's lease lasts unrenewed: one that stops answering
 * (killed, SIGSTOPped, cut off) is replaced this long after its last
 * renewal. It renews before a batch once a third of it has passed.
 */
const LEASE_MS = 10_000;
const RENEW_AFTER_MS = LEASE_MS / 3;
const BACKOFF_MS = 1_000;
/** The re-read of a tail whose newest events wait for an older transaction that may commit none (see TailRead.heldBack). */
const HELD_BACK_POLL_MS = 5;

/**
 * Follows the ledger's tail in commit order (the relay to JetStream, the
 * projector's feed without NATS): the one active reader of its name (a
 * lease, as the sweeper's) reads the events committed after its cursor, on
 * a connection of its own (never queued behind the pool's other work),
 * hands each batch to `deliver`, and moves its cursor past the batch once
 * delivered, so a reader that dies between the two delivers the batch again
 * (at least once; consumers drop what they hold already). Commits wake it
 * (LISTEN on a connection of its own); the poll is the safety net.
 *
 * It leads by a lease in `noetl.leadership`, not by a session lock: a
 * session lock stays with a stopped process for as long as it is stopped.
 * A reader that resumes after its lease ran out may deliver the batch it had
 * in hand once more; its cursor never moves back.
 */
export class LedgerFollower {
  private stopped = false;
  private running?: Promise<void>;
  private wake?: () => void;
  /** A wake-up that came while the reader was busy: its next sleep returns at once, so no commit is missed. */
  private woken = false;
  private renewedAt = 0;
  /** This reader, in the leadership row: its process and a random part (a restarted process is another holder). */
  readonly holder = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

  constructor(private readonly options: LedgerFollowerOptions) {}

  start(): void {
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.notify();
    await this.running;
    await this.options.leadership.resign(this.options.db, this.options.name, this.holder).catch(() => undefined);
  }

  /** The reader's cursor as stored (every process reads the same). */
  async position(): Promise<TailPosition> {
    return (await this.options.cursors.get(this.options.db, this.options.name)) ?? TAIL_START;
  }

  private async run(): Promise<void> {
    const { logger } = this.options;
    while (!this.stopped) {
      let connection: DedicatedConnection | undefined;
      try {
        await this.options.beforeLeading?.();
        if (!(await this.lead())) {
          await this.sleep(TAKEOVER_MS);
          continue;
        }
        connection = await this.options.db.dedicated(`noetl ${this.options.name}`);
        this.options.leading?.(true);
        logger.info({ reader: this.options.name }, 'this process follows the ledger');
        await connection.listen(EVENTS_CHANNEL, () => this.notify());
        await this.follow(connection);
      } catch (error) {
        this.options.failed?.(error);
        logger.error({ err: error, reader: this.options.name }, 'following the ledger failed; retrying');
        await this.sleep(BACKOFF_MS);
      } finally {
        this.options.leading?.(false);
        this.renewedAt = 0;
        await connection?.release().catch(() => undefined);
      }
    }
  }

  /** Delivers batch after batch, then waits for a commit, the poll or a held-back re-read; until stopped, the connection is lost, or another reader leads. */
  private async follow(connection: DedicatedConnection): Promise<void> {
    const { cursors, name, batch, scope } = this.options;
    let lost: Error | undefined;
    void connection.lost.then((error) => {
      lost = error;
      this.notify();
    });
    let cursor = (await cursors.get(connection, name)) ?? TAIL_START;
    while (!this.stopped && !lost) {
      if (Date.now() - this.renewedAt >= RENEW_AFTER_MS && !(await this.lead(connection))) {
        this.options.logger.warn({ reader: name }, 'the lease ran out and another reader leads now; this one follows');
        return;
      }
      const { events, heldBack } = await readTail(connection, cursor, batch, scope);
      if (events.length > 0) {
        await this.options.deliver(events, connection);
        cursor = events.at(-1)!.position;
        await cursors.advance(connection, name, cursor);
        if (events.length === batch) continue;
      }
      await this.options.idle?.(connection);
      await this.sleep(heldBack ? HELD_BACK_POLL_MS : Math.min(this.options.pollMs, RENEW_AFTER_MS));
    }
    if (lost) throw lost;
  }

  private async lead(q: Queryable = this.options.db): Promise<boolean> {
    const leads = await this.options.leadership.lead(q, this.options.name, this.holder, LEASE_MS);
    if (leads) this.renewedAt = Date.now();
    return leads;
  }

  private notify(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Waits `ms`, or less when woken (a commit, stop, a lost connection), also by a wake-up that came before it. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (this.woken) done();
      else this.wake = done;
    });
  }
}
