import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'pg';

/** The counters of one database in pg_stat_database that say what its work cost. */
export interface DatabaseCounters {
  xact_commit: number;
  xact_rollback: number;
  tup_returned: number;
  tup_fetched: number;
  tup_inserted: number;
  tup_updated: number;
  tup_deleted: number;
}

const COUNTERS: readonly (keyof DatabaseCounters)[] = ['xact_commit', 'xact_rollback', 'tup_returned', 'tup_fetched', 'tup_inserted', 'tup_updated', 'tup_deleted'];

/** What happened between two snapshots, per unit of work (a step or an item). */
export interface PerUnit {
  transactions: number;
  inserted: number;
  updated: number;
  deleted: number;
  /** Rows fetched by index scans (tup_fetched). */
  fetched: number;
  /** Rows read by scans before filtering (tup_returned). */
  returned: number;
}

export function perUnit(before: DatabaseCounters, after: DatabaseCounters, units: number): PerUnit {
  const delta = (key: keyof DatabaseCounters): number => {
    const value = after[key] - before[key];
    if (value < 0) throw new Error(`pg_stat_database.${key} went back from ${before[key]} to ${after[key]}: were the statistics reset during the run?`);
    return value / units;
  };
  return {
    transactions: delta('xact_commit') + delta('xact_rollback'),
    inserted: delta('tup_inserted'),
    updated: delta('tup_updated'),
    deleted: delta('tup_deleted'),
    fetched: delta('tup_fetched'),
    returned: delta('tup_returned'),
  };
}

const SETTLE_TIMEOUT_MS = 15_000;

/**
 * The counters of `database`, read over `client` (connected to another
 * database of the server) once no session is connected to it: a backend
 * flushes its pending statistics when it exits, and only then.
 */
export async function countersOf(client: Client, database: string): Promise<DatabaseCounters> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database]);
    if (rows[0]!.n === 0) break;
    if (Date.now() > deadline) throw new Error(`sessions still connected to ${database} ${SETTLE_TIMEOUT_MS / 1000} s after its system stopped`);
    await sleep(50);
  }
  const { rows } = await client.query<Record<keyof DatabaseCounters, string>>(
    `SELECT ${COUNTERS.join(', ')} FROM pg_stat_database WHERE datname = $1`,
    [database],
  );
  if (!rows[0]) throw new Error(`no pg_stat_database row for ${database}`);
  const row = rows[0];
  return Object.fromEntries(COUNTERS.map((key) => [key, Number(row[key])])) as unknown as DatabaseCounters;
}
