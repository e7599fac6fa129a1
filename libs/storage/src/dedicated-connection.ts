import type { QueryRunner } from 'typeorm';
import type { Queryable } from './database';
import { isQueryTimeout } from './db-errors';
import { sqlText, type Sql } from './prepared-statements';

/** The pg client under a TypeORM query runner: what LISTEN needs. */
interface NotifyingClient {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  removeAllListeners(event: string): void;
  end(): Promise<void>;
}

/**
 * One connection of the pool held for a long-lived role (a reader of the ledger's tail):
 * its session advisory locks and LISTENs live as long as it does, and end
 * with it, so a dead holder frees them. `lost` resolves when the connection
 * fails or ends.
 */
export class DedicatedConnection implements Queryable {
  readonly lost: Promise<Error>;
  private closed = false;
  /** A statement went unanswered (the pool's query timeout): the connection is closed, not given back. */
  private unanswered = false;

  private constructor(
    private readonly runner: QueryRunner,
    private readonly client: NotifyingClient,
  ) {
    this.lost = new Promise((resolve) => {
      client.on('error', (error) => resolve(error ?? new Error('the connection failed')));
      client.on('end', () => resolve(new Error('the connection ended')));
    });
  }

  /** A connection of `runner`'s pool, named `name` in pg_stat_activity while held (operators see which session is the relay). */
  static async open(runner: QueryRunner, name: string): Promise<DedicatedConnection> {
    const client = (await runner.connect()) as NotifyingClient;
    const connection = new DedicatedConnection(runner, client);
    await connection.query(`SELECT set_config('application_name', $1, false)`, [name]);
    return connection;
  }

  async query<T = Record<string, unknown>>(sql: Sql, params?: unknown[]): Promise<T[]> {
    try {
      const result = await this.runner.query(sqlText(sql), params, true);
      return (result.records ?? []) as T[];
    } catch (error) {
      if (isQueryTimeout(error) && !this.unanswered) {
        // As Database does: the statement is still in flight on it, so nothing else may use it (pg destroys its socket).
        this.unanswered = true;
        this.client.end().catch(() => undefined);
      }
      throw error;
    }
  }

  /** Calls `onNotify` for every notification on `channel` (delivered when the notifying transaction commits). */
  async listen(channel: string, onNotify: () => void): Promise<void> {
    this.client.on('notification', (message) => {
      if (message.channel === channel) onNotify();
    });
    await this.query(`LISTEN ${channel}`);
  }

  /** Gives the connection back to the pool; its session locks and LISTENs end with the session's reset. */
  async release(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.client.removeAllListeners('notification');
    // Closed (its LISTENs and locks end with its session): the pool drops it at release.
    if (this.unanswered) return this.runner.release();
    await this.query('UNLISTEN *').catch(() => undefined);
    await this.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
    await this.query('RESET application_name').catch(() => undefined);
    await this.runner.release();
  }
}
