import { createHash } from 'node:crypto';

/**
 * A statement the runtime runs on its hot path, prepared once per
 * connection: PostgreSQL parses and plans it at its first run there, not at
 * every call (the batch append, a statement of a dozen CTEs, spent more time
 * being planned than being run: 2.8 ms -> 1.1 ms a call). After five runs
 * PostgreSQL may keep a generic plan, made without the parameters' values,
 * so a prepared text names what a plan must know as literals (the terminal
 * event types of a partial index, say) and has no `$n IS NULL OR ...`
 * conditions a generic plan cannot use. Make one with `prepared(text)` at
 * module level; any other statement runs unnamed, planned at every call.
 */
export interface PreparedSql {
  readonly name: string;
  readonly text: string;
}

/** SQL a Queryable runs: plain text, planned at every call, or a prepared statement. */
export type Sql = string | PreparedSql;

/** Every statement `prepared` made, so a spec can prepare each on a migrated schema. */
const made = new Map<string, PreparedSql>();

export function prepared(text: string): PreparedSql {
  const statement = Object.freeze({ name: `noetl_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text });
  made.set(statement.name, statement);
  return statement;
}

/** The statements `prepared` made in the modules loaded so far. */
export function preparedStatements(): PreparedSql[] {
  return [...made.values()];
}

export function sqlText(sql: Sql): string {
  return typeof sql === 'string' ? sql : sql.text;
}

/** The part of a pg client (pooled or a transaction's) that runs a statement. */
export interface StatementClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Prepared statements one connection keeps (PostgreSQL keeps each until the session ends); past it, they run unnamed. */
const MAX_PREPARED_PER_CONNECTION = 256;
const preparedOn = new WeakMap<StatementClient, Set<string>>();

/** Runs `sql` on `client`: a prepared statement under its name, plain text unnamed. */
export async function runStatement<T>(client: StatementClient, sql: Sql, params: readonly unknown[] = []): Promise<T[]> {
  const name = typeof sql === 'string' ? undefined : nameOn(client, sql);
  const result = await client.query({ ...(name ? { name } : {}), text: sqlText(sql), values: [...params] });
  return result.rows as T[];
}

function nameOn(client: StatementClient, sql: PreparedSql): string | undefined {
  let names = preparedOn.get(client);
  if (!names) preparedOn.set(client, (names = new Set()));
  if (names.has(sql.name)) return sql.name;
  if (names.size >= MAX_PREPARED_PER_CONNECTION) return undefined;
  names.add(sql.name);
  return sql.name;
}
