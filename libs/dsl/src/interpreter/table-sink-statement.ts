import { isRecord } from './write-path';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface TableSinkStatement {
  command: string;
  params: unknown[];
}

/**
 * The parameterised statement of a table-form sink (DSL.md s3): one row into
 * `table` (`name` or `schema.name`), columns in the row's key order, values
 * as `$1..$n` (mappings and lists as JSON text, `undefined` as NULL).
 * `upsert` adds `ON CONFLICT (<key>) DO UPDATE SET c = EXCLUDED.c` for every
 * non-key column (`DO NOTHING` when all columns are keys). Identifiers must
 * be plain names (`^[A-Za-z_][A-Za-z0-9_]*$`) and are double-quoted, so they
 * are case-sensitive. Returns a message instead when the row or a name is not usable.
 */
export function tableSinkStatement(
  table: string,
  row: unknown,
  mode: 'insert' | 'upsert',
  key: readonly string[] = [],
): TableSinkStatement | string {
  const tableParts = table.split('.');
  if (tableParts.length > 2 || !tableParts.every((part) => IDENTIFIER.test(part))) {
    return `sink table ${JSON.stringify(table)} must be a name or schema.name of letters, digits and _`;
  }
  if (!isRecord(row)) return 'a table sink writes one mapping as a row; the row (args, else the iteration result) is not a mapping';
  const columns = Object.keys(row);
  if (columns.length === 0) return 'a table sink row needs at least one column';
  const bad = [...columns, ...key].find((name) => !IDENTIFIER.test(name));
  if (bad !== undefined) return `sink column ${JSON.stringify(bad)} must be a name of letters, digits and _`;
  if (mode === 'upsert' && key.length === 0) return 'an upsert sink needs `key` columns';

  const target = tableParts.map(quote).join('.');
  const values = columns.map((_, i) => `$${i + 1}`).join(', ');
  let command = `INSERT INTO ${target} (${columns.map(quote).join(', ')}) VALUES (${values})`;
  if (mode === 'upsert') {
    const keys = new Set(key);
    const updates = columns.filter((column) => !keys.has(column)).map((column) => `${quote(column)} = EXCLUDED.${quote(column)}`);
    command += ` ON CONFLICT (${key.map(quote).join(', ')}) ${updates.length > 0 ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING'}`;
  }
  return { command, params: columns.map((column) => toParam(row[column])) };
}

function quote(identifier: string): string {
  return `"${identifier}"`;
}

function toParam(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'bigint') return value.toString();
  return value;
}
