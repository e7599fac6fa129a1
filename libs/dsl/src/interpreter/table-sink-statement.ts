import { isRecord } from './write-path';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface TableSinkStatement {
  command: string;
  params: unknown[];
}

/**
 * The one statement of a table-form sink (DSL.md s3): `rows` into `table`
 * (`name` or `schema.name`), passed as a single JSON parameter that
 * PostgreSQL turns into rows of the table's own type
 * (`jsonb_populate_recordset`), so every value is converted to its column's
 * type: a mapping or a list stays JSON in a json column and is its JSON text
 * in a text column, `"2024-05-01"` fills a date. One statement, however many
 * rows: they are written all or none. The columns are the rows' keys in the
 * order first seen; a column that some rows lack is NULL in those rows; a
 * column no row has keeps its default. `upsert` adds `ON CONFLICT (<key>)
 * DO UPDATE SET c = EXCLUDED.c` for every other column (`DO NOTHING` when
 * every column is a key), and of rows with equal keys only the last is
 * written (PostgreSQL refuses to update one row twice in a statement).
 * Identifiers must be plain names (`^[A-Za-z_][A-Za-z0-9_]*$`) and are
 * double-quoted, so they are case-sensitive. Returns a message instead when
 * a row or a name is not usable.
 */
export function tableSinkStatement(
  table: string,
  rows: readonly unknown[],
  mode: 'insert' | 'upsert',
  key: readonly string[] = [],
): TableSinkStatement | string {
  const tableParts = table.split('.');
  if (tableParts.length > 2 || !tableParts.every((part) => IDENTIFIER.test(part))) {
    return `sink table ${JSON.stringify(table)} must be a name or schema.name of letters, digits and _`;
  }
  const records: Record<string, unknown>[] = [];
  for (const row of rows) {
    if (!isRecord(row)) return 'a table sink writes mappings as rows; a row (args, else the iteration result) is not a mapping';
    records.push(row);
  }
  const columns = [...new Set(records.flatMap((row) => Object.keys(row)))];
  if (columns.length === 0) return 'a table sink row needs at least one column';
  const bad = [...columns, ...key].find((name) => !IDENTIFIER.test(name));
  if (bad !== undefined) return `sink column ${JSON.stringify(bad)} must be a name of letters, digits and _`;
  if (mode === 'upsert' && key.length === 0) return 'an upsert sink needs `key` columns';
  const keyless =
    mode === 'upsert' ? key.find((column) => records.some((row) => row[column] === undefined || row[column] === null)) : undefined;
  if (keyless !== undefined) return `an upsert sink row has no value for its key column ${JSON.stringify(keyless)}`;

  const target = tableParts.map(quote).join('.');
  const list = columns.map(quote).join(', ');
  let command = `INSERT INTO ${target} (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::${target}, $1::jsonb)`;
  if (mode === 'upsert') {
    const keys = new Set(key);
    const updates = columns.filter((column) => !keys.has(column)).map((column) => `${quote(column)} = EXCLUDED.${quote(column)}`);
    command += ` ON CONFLICT (${key.map(quote).join(', ')}) ${updates.length > 0 ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING'}`;
  }
  const written = mode === 'upsert' ? lastPerKey(records, key) : records;
  return { command, params: [JSON.stringify(written, (_name, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))] };
}

/** The rows with only the last of each key kept, in the order of those last ones. */
function lastPerKey(rows: readonly Record<string, unknown>[], key: readonly string[]): Record<string, unknown>[] {
  const last = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    const id = JSON.stringify(key.map((column) => row[column]));
    last.delete(id);
    last.set(id, row);
  }
  return [...last.values()];
}

function quote(identifier: string): string {
  return `"${identifier}"`;
}
