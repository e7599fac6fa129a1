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
import { streamQuery } from './stream-query';

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
    const chunkRows = readStream(config, statements.length, ctx);
    const connection = await connectionFor(config, ctx);
    if (statements.length === 0) return shapePostgresResult([]);
    try {
      if (chunkRows !== undefined && ctx.onPartial) {
        const emit = ctx.onPartial.bind(ctx);
        const query = { text: statements[0] ?? '', ...(params ? { values: params } : {}) };
        return await this.onClient(connection, true, ctx, (client) =>
          streamQuery(client, query, chunkRows, emit).catch((err: unknown) => {
            throw err instanceof CallError ? err : statementError(err, 0, 1);
          }),
        );
      }
      return await this.onClient(connection, config.transaction !== false && statements.length > 1, ctx, (client) =>
        runStatements(client, statements, params),
      );
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

  /**
   * Runs `work` on a pooled connection, inside a transaction when asked. An
   * abort cancels the running statement from another connection; a
   * connection that saw a cancel or a broken socket never goes back to the pool.
   */
  private async onClient<T>(
    connection: PgConnectionConfig,
    transaction: boolean,
    ctx: ToolContext,
    work: (client: PoolClient) => Promise<T>,
  ): Promise<T> {
    const client = await acquire(this.pools.get(connection), ctx.signal);
    const pid = 'processID' in client && typeof client.processID === 'number' ? client.processID : undefined;
    const onAbort = (): void => {
      if (pid !== undefined) void cancelBackend(connection, pid);
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    let destroy = false;
    try {
      if (transaction) await control(client, 'BEGIN');
      const result = await work(client);
      if (transaction) await control(client, 'COMMIT');
      return result;
    } catch (err) {
      destroy = ctx.signal.aborted || (err instanceof CallError ? err.info.kind === 'connection' : isConnectionLevel(err));
      if (transaction && !destroy) {
        await client.query('ROLLBACK').catch(() => {
          destroy = true;
        });
      }
      if (ctx.signal.aborted) throw cancelledError('postgres');
      throw err instanceof CallError ? err : new CallError(classifyPgError(err));
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      client.release(destroy ? true : undefined);
    }
  }
}

/** The statements in order; the result of each, shaped. */
async function runStatements(client: PoolClient, statements: string[], params: unknown[] | undefined): Promise<Record<string, unknown>> {
  const results: StatementResult[] = [];
  for (const [i, text] of statements.entries()) {
    try {
      const outcome = await client.query(params === undefined ? text : { text, values: params });
      results.push(shapeStatementResult(lastOutcome(outcome)));
    } catch (err) {
      throw statementError(err, i, statements.length);
    }
  }
  return shapePostgresResult(results);
}

/**
 * `stream: {chunk_rows: N}` (DSL.md s3): one query, read N rows at a time
 * through a cursor, each chunk reported as it is read (`onPartial`). Checked
 * again here: registration rejects what it can see, a template can still
 * render anything.
 */
function readStream(config: Record<string, unknown>, statementCount: number, ctx: ToolContext): number | undefined {
  const stream = config.stream;
  if (stream === undefined || stream === null) return undefined;
  const rows = typeof stream === 'object' && !Array.isArray(stream) ? (stream as Record<string, unknown>).chunk_rows : undefined;
  if (typeof rows !== 'number' || !Number.isInteger(rows) || rows < 1)
    throw invalidConfig('postgres', 'stream.chunk_rows must be a positive integer');
  if (statementCount !== 1) throw invalidConfig('postgres', `stream reads one query, got ${statementCount} statements`);
  if (!ctx.onPartial)
    throw invalidConfig('postgres', 'stream needs a step of its own: a result cannot stream here (a pipeline or a loop body)');
  return rows;
}

function readStatements(config: Record<string, unknown>): string[] {
  const source = firstPresent(config, ['query', 'command', 'commands']);
  if (!source) throw invalidConfig('postgres', 'one of query, command or commands is required');
  const texts = Array.isArray(source.value) ? source.value : [source.value];
  return texts.flatMap((text, i) => {
    if (typeof text !== 'string')
      throw invalidConfig('postgres', `${source.key}${Array.isArray(source.value) ? `[${i}]` : ''} must be SQL text`);
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
      pending.then(
        (client) => client.release(),
        () => undefined,
      );
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
