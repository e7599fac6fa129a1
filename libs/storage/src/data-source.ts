import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../../migrations';
import { multiHostDriver, pgConnection } from './multi-host';

/**
 * TypeORM keeps its bookkeeping table outside schema `noetl`, so reverting the
 * initial migration (which drops the schema) can still record that it did.
 */
export const MIGRATIONS_SCHEMA = 'public';
export const MIGRATIONS_TABLE = 'noetl_migrations';

export interface DataSourceOptions {
  /** Connections in the pool (pg `max`); default 10. */
  poolSize?: number;
  /** `application_name` in pg_stat_activity; default `noetl`. */
  applicationName?: string;
  connectTimeoutMs?: number;
  /**
   * Set on every session of the pool (pg's startup parameters): the server
   * ends a session idle inside a transaction this long (its locks go with
   * it), and fails a statement that waits this long for a lock. And, on the
   * client's side, `queryTimeoutMs` (0 or absent: none): a statement not
   * answered this long fails with `Query read timeout` (pg's
   * `query_timeout`), and its connection is closed (see `Database`), since
   * a server that does not answer (a partition that swallows packets) may
   * never answer.
   */
  sessions?: { idleInTransactionMs: number; lockTimeoutMs: number; queryTimeoutMs?: number };
  /**
   * The role every session of the pool works as (`SET ROLE`), given at connect time as the
   * startup option `role`: it costs no statement, holds for the whole session, and `RESET ROLE`
   * or `DISCARD ALL` come back to it rather than to the login (see `runtimeRoleFor`).
   */
  role?: string;
}

/**
 * A TypeORM DataSource over the pg driver: no entities, no `synchronize`; the
 * schema changes only through `migrate()`. BIGINT columns come back as strings
 * (pg's default, kept on purpose: ids travel as strings).
 */
export function createDataSource(url: string, options: DataSourceOptions = {}): DataSource {
  // Several hosts (issue 29): TypeORM and pg read the first host's URL; the pool's clients choose the host (multi-host.ts).
  const connection = pgConnection(url);
  return new DataSource({
    type: 'postgres',
    url: connection.connectionString,
    ...(connection.multiHost ? { driver: multiHostDriver(url) } : {}),
    schema: MIGRATIONS_SCHEMA,
    migrations: [...MIGRATIONS],
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsRun: false,
    synchronize: false,
    logging: false,
    entities: [],
    poolSize: options.poolSize ?? 10,
    applicationName: options.applicationName ?? 'noetl',
    connectTimeoutMS: options.connectTimeoutMs ?? 10_000,
    extra: {
      ...(options.sessions
        ? { idle_in_transaction_session_timeout: options.sessions.idleInTransactionMs, lock_timeout: options.sessions.lockTimeoutMs }
        : {}),
      ...(options.sessions?.queryTimeoutMs ? { query_timeout: options.sessions.queryTimeoutMs } : {}),
      ...(options.role ? { options: `-c role=${options.role}` } : {}),
      ...(connection.Client ? { Client: connection.Client } : {}),
    },
  });
}
