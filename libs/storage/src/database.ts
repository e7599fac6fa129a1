import type { DataSource, QueryRunner } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';
import { createDataSource, type DataSourceOptions } from './data-source';
import { isConnectionLoss, SqlState, sqlStateOf } from './db-errors';
import { DedicatedConnection } from './dedicated-connection';
import { LedgerTransaction } from './ledger-transaction';
import { PipelinedTransaction, type PipelineClient } from './pipelined-transaction';
import { runStatement, type Sql, type StatementClient } from './prepared-statements';

/**
 * What a repository needs to speak SQL: the pool itself or one open
 * transaction. Repositories take a `Queryable`, so several of them can join
 * the caller's transaction.
 */
export interface Queryable {
  /** Rows of the statement (also for INSERT/UPDATE/DELETE ... RETURNING); [] when it returns none. */
  query<T = Record<string, unknown>>(sql: Sql, params?: unknown[]): Promise<T[]>;
}

export interface TransactionOptions {
  isolation?: IsolationLevel;
  /**
   * The transaction's writes are settled by their keys (ids minted before it,
   * unique keys, `ON CONFLICT`): running it again after it committed changes
   * nothing. Then a transaction whose connection was lost (issue 29: a
   * failover, a restart, a cut) is run again, on a fresh connection, also
   * when the loss came during its COMMIT (in doubt: it may have committed).
   * Without it, such a loss surfaces as the error (an `InDoubtCommitError`
   * when it came during COMMIT), and the caller's own retry must settle it.
   */
  idempotent?: boolean;
}

/**
 * The connection died while COMMIT was on its way or its reply was: the
 * transaction may or may not have committed (issue 29). Never re-applied
 * blindly: the caller settles it by its idempotency key (`idempotent`
 * transactions do so by running again, their keys making the second run a no-op).
 */
export class InDoubtCommitError extends Error {
  override readonly name = 'InDoubtCommitError';

  constructor(override readonly cause: unknown) {
    super(
      `the connection was lost during COMMIT: the transaction may or may not have committed (${cause instanceof Error ? cause.message : String(cause)})`,
    );
  }
}

/** How often an `idempotent` transaction is tried when its connection is lost; the pauses between (250 ms doubling) span a failover of ~8 s. */
const CONNECTION_LOSS_ATTEMPTS = 6;
const CONNECTION_LOSS_PAUSE_MS = 250;

/**
 * A write whose result the caller does not read (a lock, a row update): in
 * one of Database.transaction's, it goes with the transaction's next
 * statement or its COMMIT, in order (see PipelinedTransaction); elsewhere at once.
 */
export async function enqueueWrite(q: Queryable, sql: Sql, params: unknown[] = []): Promise<void> {
  if (q instanceof LedgerTransaction) await q.enqueue(sql, params);
  else await q.query(sql, params);
}

/** The TypeORM DataSource behind a small, explicit surface. */
export class Database implements Queryable {
  /** Round trips this pool has made: statements (BEGIN and COMMIT included) and transactions; what a benchmark divides by its work. */
  readonly counts = { statements: 0, transactions: 0 };

  constructor(
    readonly dataSource: DataSource,
    /** The URL as given, every host of a multi-host one (TypeORM holds only the first host's). */
    private readonly givenUrl?: string,
  ) {}

  /** The URL its pool connects with: where the ledger is (a worker probes its cluster's logins: issue 25 item 2). */
  get url(): string | undefined {
    if (this.givenUrl) return this.givenUrl;
    const options = this.dataSource.options;
    return options.type === 'postgres' ? options.url : undefined;
  }

  static async connect(url: string, options?: DataSourceOptions): Promise<Database> {
    const dataSource = createDataSource(url, options);
    await dataSource.initialize();
    guardCheckedOutClients(dataSource);
    return new Database(dataSource, url);
  }

  async query<T = Record<string, unknown>>(sql: Sql, params?: unknown[]): Promise<T[]> {
    const runner = this.dataSource.createQueryRunner();
    let failure: unknown;
    try {
      this.counts.statements++;
      return await runStatement<T>(await clientOf(runner), sql, params);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      await release(runner, failure);
    }
  }

  /**
   * Runs `fn` in one transaction on one connection: COMMIT when it resolves,
   * ROLLBACK when it throws. Its statements go through a
   * PipelinedTransaction: BEGIN and the writes queued with `enqueueWrite`
   * travel with the next statement, so a transaction costs the round trips
   * of the statements whose rows it reads, plus its COMMIT. `fn` gets the
   * transaction as a LedgerTransaction: its stream locks, heads and deferred
   * events last as long as it does.
   */
  async transaction<T>(fn: (tx: LedgerTransaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (!options.idempotent) return this.transactionOnce(fn, options);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transactionOnce(fn, options);
      } catch (error) {
        const lost = error instanceof InDoubtCommitError || isConnectionLoss(error);
        if (!lost || attempt >= CONNECTION_LOSS_ATTEMPTS) throw error;
        await pause(CONNECTION_LOSS_PAUSE_MS * 2 ** (attempt - 1));
      }
    }
  }

  private async transactionOnce<T>(fn: (tx: LedgerTransaction) => Promise<T>, options: TransactionOptions): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    let pipeline: PipelinedTransaction | undefined;
    let failure: unknown;
    let committing = false;
    try {
      const client = (await runner.connect()) as PipelineClient;
      pipeline = new PipelinedTransaction(
        client,
        options.isolation ? `BEGIN ISOLATION LEVEL ${options.isolation}` : 'BEGIN',
        () => this.counts.statements++,
      );
      this.counts.transactions++;
      const tx = new LedgerTransaction(pipeline);
      const result = await fn(tx);
      await tx.runBeforeCommit();
      committing = true;
      await pipeline.commit();
      return result;
    } catch (error) {
      failure = error;
      // The COMMIT went (or may have) and no reply came: in doubt, not rolled back (issue 29).
      // A read-only refusal (25006) is the server's answer, so nothing committed; any other loss is counted in doubt.
      if (committing && isConnectionLoss(error) && sqlStateOf(error) !== SqlState.ReadOnlyTransaction) throw new InDoubtCommitError(error);
      // No ROLLBACK on a lost connection (on one that did not answer, it would wait behind the unanswered statement:
      // the server ends the transaction with the connection). A rollback that fails so must not hide why we rolled
      // back, and leaves its connection to be destroyed.
      if (pipeline?.started && !isConnectionLoss(error)) {
        await pipeline.rollback().catch((rollbackError: unknown) => {
          if (isConnectionLoss(rollbackError)) failure = rollbackError;
        });
      }
      throw error;
    } finally {
      await release(runner, failure);
    }
  }

  /** A connection of the pool held until released (session locks, LISTEN), named `name` in pg_stat_activity meanwhile. */
  dedicated(name: string): Promise<DedicatedConnection> {
    return DedicatedConnection.open(this.dataSource.createQueryRunner(), name);
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Gives the runner's connection back, or, when `failure` says the connection
 * is lost or landed on a read-only server (`isConnectionLoss`), destroys it:
 * pg-pool drops a client released with an error, so the next checkout opens
 * a fresh connection (to the writable host, with a multi-host URL).
 */
async function release(runner: QueryRunner, failure: unknown): Promise<void> {
  if (failure !== undefined && isConnectionLoss(failure)) {
    const postgres = runner as QueryRunner & { releasePostgresConnection?(error?: Error): Promise<void> };
    if (postgres.releasePostgresConnection) {
      await postgres.releasePostgresConnection(failure instanceof Error ? failure : new Error(String(failure)));
      return;
    }
  }
  await runner.release();
}

/**
 * The pg client a query runner holds (connecting it): statements go to it
 * straight (`runStatement`, prepared ones by name), not through TypeORM's
 * query path, which adds nothing the runtime uses (its logging is off, no
 * entity subscribers) and costs CPU on every statement. pg errors carry
 * their SQLSTATE `code`, which `db-errors.ts` reads either way.
 */
async function clientOf(runner: QueryRunner): Promise<StatementClient> {
  return (await runner.connect()) as StatementClient;
}

/**
 * pg-pool listens for a client's `error` only while it is idle, and TypeORM
 * only once its query runner holds it: a client whose backend is terminated
 * (pg_terminate_backend, a server restart) in between emitted `error` with no
 * listener and killed the process (found by the chaos harness, issue 14,
 * postgres-terminate-backends: the api exited). Every client of the pool gets
 * a listener of its own from its first checkout; the query that fails on it
 * still fails, and the pool discards the dead client.
 */
function guardCheckedOutClients(dataSource: DataSource): void {
  const { driver } = dataSource;
  // The runtime's data sources are postgres ones; TypeORM types the driver's pg Pool `any`, and ClientPool states what is used of it.
  const pool: ClientPool | undefined = driver instanceof PostgresDriver ? driver.master : undefined;
  const guarded = new WeakSet<object>();
  // `acquire`: every checkout, of clients made before this too (initialize made one).
  pool?.on('acquire', (client) => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on('error', () => undefined);
  });
}

/** The part of pg's Pool under TypeORM's driver that the guard uses. */
interface ClientPool {
  on(event: 'acquire', listener: (client: { on(event: 'error', listener: () => void): void }) => void): void;
}
