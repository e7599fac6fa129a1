import { Pool, type PoolClient } from 'pg';
import { errorMessage } from '../shared/tool-errors';
import { clusterPowers } from './cluster-power';
import {
  type ProtectedDatabase,
  protectedClusterError,
  protectedDatabaseError,
  readDatabaseIdentity,
  sameCluster,
  sameDatabase,
  type RowsOf,
} from './database-identity';
import { type PgConnectionConfig, poolKey } from './pg-connection-config';
import { resultTypes } from './pg-value-parsers';

export interface PgPoolOptions {
  /** Connections per distinct database config (default 10). */
  maxConnections?: number;
  /** Connect timeout in ms (default 10 000). */
  connectTimeoutMs?: number;
  /** Idle connections are closed after this many ms (default 30 000). */
  idleTimeoutMs?: number;
  /** Checked on every new connection: one that reaches this database is closed and the call refused. */
  protectedDatabase?: ProtectedDatabase;
}

/** One pg.Pool per distinct connection config, keyed by a hash of the config. */
export class PgPoolCache {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly options: PgPoolOptions = {}) {}

  get(config: PgConnectionConfig): Pool {
    const key = poolKey(config);
    const cached = this.pools.get(key);
    if (cached) return cached;
    const pool = new Pool({
      ...config,
      types: resultTypes,
      max: this.options.maxConnections ?? 10,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? 10_000,
      idleTimeoutMillis: this.options.idleTimeoutMs ?? 30_000,
      allowExitOnIdle: true,
      application_name: 'noetl-tools',
      ...(this.options.protectedDatabase ? { verify: refuseProtected(this.options.protectedDatabase) } : {}),
    });
    // An idle client whose server went away: the pool drops it; the next query reconnects.
    pool.on('error', () => undefined);
    // pg-pool listens for `error` only while a client is idle. A checked-out client whose server
    // goes away (a restart, pg_terminate_backend) emits it unhandled and kills the process: when
    // the FATAL message arrives between two statements, or in the same packet as the connection's
    // first ReadyForQuery. The statement in flight (or the next one) fails on its own and is
    // classified `connection`; the pool discards a client that is no longer queryable.
    pool.on('connect', (client) => client.on('error', () => undefined));
    this.pools.set(key, pool);
    return pool;
  }

  get size(): number {
    return this.pools.size;
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.allSettled(pools.map((pool) => pool.end()));
  }
}

/**
 * pg-pool's `verify` hook: asks the new connection which database it reached and refuses it when
 * that is the protected one, or (with `cluster`) another of its cluster reached by a role with
 * power over it. Per connection, not per config: a name may resolve elsewhere later. A pool keeps
 * its connections, so a step pays for this when its pool opens one, not per statement.
 */
function refuseProtected(target: ProtectedDatabase): (client: PoolClient, done: (err?: Error) => void) => void {
  return (client, done) => {
    const rowsOf: RowsOf = async (sql, params) => (await client.query<Record<string, unknown>>(sql, params)).rows;
    refusal(target, rowsOf).then(done, (err: unknown) => done(err instanceof Error ? err : new Error(errorMessage(err))));
  };
}

async function refusal(target: ProtectedDatabase, rowsOf: RowsOf): Promise<Error | undefined> {
  const [reached, guarded] = await Promise.all([readDatabaseIdentity(rowsOf), target.identity()]);
  if (sameDatabase(reached, guarded)) return protectedDatabaseError(reached.name, target.reason);
  if (!target.cluster || !sameCluster(reached, guarded)) return undefined;
  const { role, powers } = await clusterPowers(rowsOf, guarded.name);
  return powers.length === 0 ? undefined : protectedClusterError(role, powers, target.cluster.hint);
}
