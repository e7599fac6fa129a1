import { Client } from 'pg';

/**
 * Cumulative read counters of each table and index of a database: `table` or
 * `table.index` -> scans and rows, and `database (fetched)` / `database
 * (returned)` from its pg_stat_database row.
 */
export const DATABASE_FETCHED = 'database (fetched)';
export const DATABASE_RETURNED = 'database (returned)';

export type Reads = Map<string, { scans: number; rows: number }>;

/** The read counters of the database at `url` (its pg_stat_user_tables and pg_stat_user_indexes). */
export async function tableReads(url: string): Promise<Reads> {
  const client = new Client({ connectionString: url, application_name: 'bench-executions-stats' });
  await client.connect();
  try {
    // The statistics collector publishes a backend's counters about once a second.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await client.query('SELECT pg_stat_clear_snapshot()');
    const reads: Reads = new Map();
    const tables = await client.query<{ name: string; seq_scan: string; seq_tup_read: string }>(
      `SELECT schemaname || '.' || relname AS name, seq_scan, seq_tup_read FROM pg_stat_user_tables`,
    );
    for (const row of tables.rows) reads.set(`${row.name} (seq)`, { scans: Number(row.seq_scan), rows: Number(row.seq_tup_read) });
    const indexes = await client.query<{ name: string; idx_scan: string; idx_tup_read: string }>(
      `SELECT schemaname || '.' || relname || '.' || indexrelname AS name, idx_scan, idx_tup_read FROM pg_stat_user_indexes`,
    );
    for (const row of indexes.rows) reads.set(row.name, { scans: Number(row.idx_scan), rows: Number(row.idx_tup_read) });
    const [database] = (
      await client.query<{ fetched: string; returned: string }>(
        `SELECT tup_fetched AS fetched, tup_returned AS returned FROM pg_stat_database WHERE datname = current_database()`,
      )
    ).rows;
    reads.set(DATABASE_FETCHED, { scans: 0, rows: Number(database?.fetched ?? 0) });
    reads.set(DATABASE_RETURNED, { scans: 0, rows: Number(database?.returned ?? 0) });
    return reads;
  } finally {
    await client.end();
  }
}

/** The tables and indexes that read the most rows between two snapshots, per unit of work. */
export function topReads(before: Reads, after: Reads, units: number, limit = 15): string[] {
  const per = (value: number): string => (value / units).toFixed(1);
  return [...after]
    .map(([name, now]) => ({ name, scans: now.scans - (before.get(name)?.scans ?? 0), rows: now.rows - (before.get(name)?.rows ?? 0) }))
    .filter((entry) => entry.scans > 0 && !entry.name.startsWith('database ('))
    .sort((a, b) => b.rows - a.rows)
    .slice(0, limit)
    .map((entry) => `${entry.name}: ${per(entry.scans)} scans, ${per(entry.rows)} rows`);
}
