import { SqlState, sqlStateOf } from './db-errors';
import { runStatement, sqlText, type PreparedSql, type Sql, type StatementClient } from './prepared-statements';

/** The pg client of a transaction: statements with parameters, and simple-protocol messages of several statements. */
export interface PipelineClient extends StatementClient {
  query(text: string): Promise<{ rows: unknown[] } | { rows: unknown[] }[]>;
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Parameters up to this many characters as literals go inline; a statement with more goes alone, as parameters. */
const MAX_INLINE_CHARS = 16_384;
/** Statements one connection keeps prepared by SQL `PREPARE`; past it, statements go unprepared. */
const MAX_SQL_PREPARED = 256;
const sqlPrepared = new WeakMap<StatementClient, Set<string>>();

/**
 * One transaction's statements, sent with as few round trips as the pg
 * driver allows. pg sends one statement per round trip (it does not
 * pipeline), and on a machine where a round trip costs more than the
 * statements themselves (a step of a chain made ten of them), that wait was
 * most of a step. So: BEGIN is not sent alone; writes whose result nobody
 * reads (`enqueue`: a lock, a row update) wait for the transaction's next
 * statement or its COMMIT, and go with it in one simple-protocol message,
 * in order (each statement still takes its own snapshot, and sees the ones
 * before it). A prepared statement (`PreparedSql`) goes there as `EXECUTE`
 * of a statement `PREPARE`d once per connection, its parameters written as
 * literals; a plain text that takes parameters goes alone, after the
 * waiting writes, with the extended protocol. An error of a waiting write
 * surfaces at the statement it went with, and fails the transaction as it
 * would have.
 */
export class PipelinedTransaction {
  private readonly waiting: string[] = [];
  private begun = false;

  constructor(
    private readonly client: PipelineClient,
    private readonly begin: string,
    /** Counts each round trip (a benchmark's statements per step). */
    private readonly roundTrip: () => void,
  ) {}

  /** Rows of `sql`; whatever waits goes first, in the same message when it can. */
  async query<T>(sql: Sql, params: readonly unknown[] = []): Promise<T[]> {
    const inline = await this.inlined(sql, params);
    if (inline) return this.send([...this.pending(), ...inline]) as Promise<T[]>;
    await this.flush();
    this.roundTrip();
    return runStatement<T>(this.client, sql, params);
  }

  /** A write whose rows nobody reads: it goes with the next statement, or alone first when that one cannot go inline. */
  async enqueue(sql: Sql, params: readonly unknown[] = []): Promise<void> {
    const inline = await this.inlined(sql, params);
    if (inline) {
      this.waiting.push(...inline);
      return;
    }
    await this.flush();
    this.roundTrip();
    await runStatement(this.client, sql, params);
  }

  /** COMMIT, with whatever still waits; nothing at all when the transaction never sent a statement. */
  async commit(): Promise<void> {
    if (!this.begun && this.waiting.length === 0) return;
    await this.send([...this.pending(), 'COMMIT']);
  }

  /** Whether BEGIN went: a failed transaction then needs its ROLLBACK. */
  get started(): boolean {
    return this.begun;
  }

  /** ROLLBACK of a transaction that began; what waits is dropped. */
  async rollback(): Promise<void> {
    this.waiting.length = 0;
    if (!this.begun) return;
    this.roundTrip();
    await this.client.query('ROLLBACK');
  }

  private async flush(): Promise<void> {
    const pending = this.pending();
    if (pending.length > 0) await this.send(pending);
  }

  /** BEGIN (once) and the waiting writes, taken. */
  private pending(): string[] {
    const out = this.begun ? [] : [this.begin];
    this.begun = true;
    out.push(...this.waiting.splice(0));
    return out;
  }

  /** One message; the rows of its last statement. */
  private async send(statements: readonly string[]): Promise<unknown[]> {
    this.roundTrip();
    const results = await this.client.query(statements.join(';\n'));
    return (Array.isArray(results) ? results.at(-1)?.rows : results.rows) ?? [];
  }

  /**
   * `sql` as a statement of a simple-protocol message, or undefined when it
   * must go with the extended protocol. A prepared statement is `PREPARE`d on
   * this connection first, in a round trip of its own, once: a prepared
   * statement outlives a transaction that rolls back, and one that failed to
   * prepare fails alone.
   */
  private async inlined(sql: Sql, params: readonly unknown[]): Promise<string[] | undefined> {
    if (typeof sql === 'string') return params.length === 0 && !sql.includes(';') ? [sql] : undefined;
    const name = `${sql.name}_s`;
    let prepared = sqlPrepared.get(this.client);
    if (!prepared) sqlPrepared.set(this.client, (prepared = new Set()));
    if (!prepared.has(name)) {
      if (prepared.size >= MAX_SQL_PREPARED) return undefined;
      // Its own message, ahead of what waits: PREPARE takes no snapshot and changes no data.
      this.roundTrip();
      await this.client.query(`PREPARE ${name} AS ${sqlText(sql as PreparedSql)}`).catch((error: unknown) => {
        // Prepared already on this connection (by a run whose bookkeeping was lost): it is there to execute.
        if (sqlStateOf(error) !== SqlState.DuplicatePreparedStatement) throw error;
      });
      prepared.add(name);
    }
    const texts = params.map(textOf);
    // A large value travels better as a parameter: as a literal it is copied into one more string the size of the value.
    if (texts.reduce((size, text) => size + (text?.length ?? 0), 0) > MAX_INLINE_CHARS) return undefined;
    const literals = texts.map((text) => (text === null ? 'NULL' : sqlLiteral(text)));
    return [`EXECUTE ${name}${literals.length > 0 ? `(${literals.join(', ')})` : ''}`];
  }
}

/**
 * A parameter in the text form pg sends it in (the statement's casts and the
 * prepared statement's parameter types apply to its literal as to a
 * parameter), null for NULL: bytea as hex, a timestamp in ISO form, an array
 * as an array literal, an object as JSON, anything else as text.
 */
function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `{${value.map(arrayElement).join(',')}}`;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * `text` as an SQL string literal, as pg's escapeLiteral writes it (quotes
 * doubled; with a backslash, an E'' literal with backslashes doubled): by
 * whole-string replaces, where escapeLiteral appends character by character
 * and leaves a rope of one string per character, megabytes of it for a
 * large document, until it is flattened.
 */
export function sqlLiteral(text: string): string {
  const body = text.replace(/'/g, "''");
  return text.includes('\\') ? ` E'${body.replace(/\\/g, '\\\\')}'` : `'${body}'`;
}

function arrayElement(value: unknown): string {
  const text = textOf(value);
  return text === null ? 'NULL' : `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
