/** One statement's outcome, as templates see it (RESULT_SHAPES s3). */
export interface StatementResult {
  rows: Record<string, unknown>[];
  row_count: number;
  columns: string[];
}

/** The parts of a pg `QueryResult` the shape depends on. */
export interface PgQueryOutcome {
  fields?: readonly { name: string }[];
  rows?: readonly unknown[];
  rowCount?: number | null;
}

/**
 * A statement returns rows when the server described result fields (SELECT, WITH ... RETURNING,
 * UPDATE ... RETURNING), whatever its first keyword; then `row_count` is the number of rows.
 * Otherwise `rows` is empty and `row_count` the affected rows (0 for DDL, DO, ...).
 */
export function shapeStatementResult(outcome: PgQueryOutcome): StatementResult {
  const fields = outcome.fields ?? [];
  if (fields.length === 0) return { rows: [], row_count: outcome.rowCount ?? 0, columns: [] };
  const rows = (outcome.rows ?? []).map((row) => jsonRow(row));
  return { rows, row_count: rows.length, columns: fields.map((f) => f.name) };
}

/**
 * The tool result: the last statement's `{rows, row_count, columns}` at top level, plus
 * `status`, `statement_count` and `command_<i>` for every statement (both NoETL families).
 */
export function shapePostgresResult(statements: readonly StatementResult[]): Record<string, unknown> {
  const last = statements[statements.length - 1] ?? { rows: [], row_count: 0, columns: [] };
  const result: Record<string, unknown> = {
    status: 'success',
    statement_count: statements.length,
    rows: last.rows,
    row_count: last.row_count,
    columns: last.columns,
  };
  statements.forEach((statement, i) => {
    result[`command_${i}`] = statement;
  });
  return result;
}

function jsonRow(row: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof row !== 'object' || row === null) return out;
  for (const [key, value] of Object.entries(row)) out[key] = jsonValue(value);
  return out;
}

/** Leftover non-JSON values from pg's default parsers (dates in arrays, buffers, bigints). */
export function jsonValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    return value;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  if (Array.isArray(value)) return value.map(jsonValue);
  return value;
}
