import { Client, type Pool, type PoolClient, type QueryResult } from 'pg';
import { CallError } from '@noetl/dsl';
import type { Tool, ToolContext } from '../tool';
import { firstPresent } from '../shared/read-config';
import { resolveAuth } from '../shared/resolve-auth';
import { SecretSet } from '../shared/secret-set';
import { cancelledError, errorMessage, invalidConfig, throwIfAborted } from '../shared/tool-errors';
import { classifyPgError, isConnectionLevel } from './classify-pg-error';
import { type PgConnectionConfig, pgConnectionFromData, pgConnectionFromValue } from './pg-connection-config';
import { PgPoolCache, type PgPoolOptions } from './pg-pool-cache';
import { shapePostgresResult, shapeStatementResult, type StatementResult } from './shape-pg-result';
import { splitStatements } from './split-statements';

export type PostgresToolOptions = PgPoolOptions;

/**
 * `kind: postgres`: runs the statements of `query` / `command` / `commands` on a pooled
 * connection, in one transaction unless `transaction: false` (a single statement runs
 * alone, so VACUUM and friends work). Result shape: see `shapePostgresResult`.
 */
export class PostgresTool implements Tool {
  readonly kind = 'postgres';
  private readonly pools: PgPoolCache;

  constructor(options: PostgresToolOptions = {}) {
    this.pools = new PgPoolCache(options);
  }

  async run(config: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    throwIfAborted(ctx.signal, 'postgres');
    const statements = readStatements(config);
    const params = readParams(config, statements.length);
    const connection = await connectionFor(config, ctx);
    if (statements.length === 0) return shapePostgresResult([]);
    try {
      return await this.execute(connection, statements, params, config.transaction !== false, ctx);
    } catch (err) {
      if (!(err instanceof CallError)) throw err;
      // The password and DSN never leave in a message (the server may quote what it was sent).
      const secrets = new SecretSet();
      secrets.add(connection);
      throw secrets.callError(err);
    }
  }

  async close(): Promise<void> {
    await this.pools.close();
  }

  private async execute(
    connection: PgConnectionConfig,
    statements: string[],
    params: unknown[] | undefined,
    transaction: boolean,
    ctx: ToolContext,
  ): Promise<Record<string, unknown>> {
    const client = await acquire(this.pools.get(connection), ctx.signal);
    const inTransaction = transaction && statements.length > 1;
    const pid = 'processID' in client && typeof client.processID === 'number' ? client.processID : undefined;
    const onAbort = (): void => {
      if (pid !== undefined) void cancelBackend(connection, pid);
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    let destroy = false;
    try {
      if (inTransaction) await control(client, 'BEGIN');
      const results: StatementResult[] = [];
      for (const [i, text] of statements.entries()) {
        try {
          const outcome = await client.query(params === undefined ? text : { text, values: params });
          results.push(shapeStatementResult(lastOutcome(outcome)));
        } catch (err) {
          throw statementError(err, i, statements.length);
        }
      }
      if (inTransaction) await control(client, 'COMMIT');
      return shapePostgresResult(results);
    } catch (err) {
      destroy = ctx.signal.aborted || (err instanceof CallError ? err.info.kind === 'connection' : isConnectionLevel(err));
      if (inTransaction && !destroy) {
        await client.query('ROLLBACK').catch(() => {
          destroy = true;
        });
      }
      if (ctx.signal.aborted) throw cancelledError('postgres');
      throw err instanceof CallError ? err : new CallError(classifyPgError(err));
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      // A connection that saw a cancel or a broken socket never goes back to the pool.
      client.release(destroy ? true : undefined);
    }
  }
}

function readStatements(config: Record<string, unknown>): string[] {
  const source = firstPresent(config, ['query', 'command', 'commands']);
  if (!source) throw invalidConfig('postgres', 'one of query, command or commands is required');
  const texts = Array.isArray(source.value) ? source.value : [source.value];
  return texts.flatMap((text, i) => {
    if (typeof text !== 'string') throw invalidConfig('postgres', `${source.key}${Array.isArray(source.value) ? `[${i}]` : ''} must be SQL text`);
    return splitStatements(text);
  });
}

function readParams(config: Record<string, unknown>, statementCount: number): unknown[] | undefined {
  const params = config.params;
  if (params === undefined || params === null) return undefined;
  if (!Array.isArray(params)) throw invalidConfig('postgres', 'params must be a list (bound to $1..$n)');
  if (statementCount !== 1) throw invalidConfig('postgres', `params can only be used with a single statement, got ${statementCount}`);
  return params;
}

async function connectionFor(config: Record<string, unknown>, ctx: ToolContext): Promise<PgConnectionConfig> {
  const auth = firstPresent(config, ['auth', 'credential']);
  if (auth) {
    const { data, label } = await resolveAuth('postgres', auth.value, ctx);
    return pgConnectionFromData(data, label);
  }
  const connection = firstPresent(config, ['connection']);
  if (connection) return pgConnectionFromValue(connection.value);
  throw invalidConfig('postgres', 'auth (a credential) or connection (a DSN) is required');
}

/** pool.connect() that gives up when the signal aborts (the late connection is returned to the pool). */
async function acquire(pool: Pool, signal: AbortSignal): Promise<PoolClient> {
  const pending = pool.connect();
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(cancelledError('postgres'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([pending, aborted]);
  } catch (err) {
    if (signal.aborted) {
      pending.then((client) => client.release(), () => undefined);
      throw cancelledError('postgres');
    }
    if (err instanceof CallError) throw err;
    throw new CallError(classifyPgError(err));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Cancels the running statement of backend `pid` from a separate connection. */
async function cancelBackend(connection: PgConnectionConfig, pid: number): Promise<void> {
  const client = new Client({ ...connection, connectionTimeoutMillis: 5_000, application_name: 'noetl-tools-cancel' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT pg_cancel_backend($1)', [pid]);
  } catch {
    // Best effort: the connection is destroyed after the run anyway.
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function control(client: PoolClient, sql: 'BEGIN' | 'COMMIT'): Promise<void> {
  try {
    await client.query(sql);
  } catch (err) {
    throw new CallError(classifyPgError(err, sql));
  }
}

/** A statement that slipped through as several gives an array of results: keep the last. */
function lastOutcome(outcome: QueryResult | QueryResult[]): QueryResult | Record<string, never> {
  return Array.isArray(outcome) ? (outcome[outcome.length - 1] ?? {}) : outcome;
}

function statementError(err: unknown, index: number, count: number): CallError {
  const info = classifyPgError(err, `statement ${index} (command_${index})`);
  return new CallError(info, {
    status: 'error',
    statement_count: count,
    errors: [{ statement_index: index, message: errorMessage(err), ...(info.code ? { code: info.code } : {}) }],
  });
}
