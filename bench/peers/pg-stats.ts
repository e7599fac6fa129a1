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

const COUNTERS: readonly (keyof DatabaseCounters)[] = [
  'xact_commit',
  'xact_rollback',
  'tup_returned',
  'tup_fetched',
  'tup_inserted',
  'tup_updated',
  'tup_deleted',
];

/** The work's share of the counters, per unit of work (a step or an item). */
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

/**
 * The counters' growth over the run child less their growth over the idle
 * child (the system started and stopped with no work: its connect, start-up
 * queries and shutdown), divided by the units of work. Three snapshots:
 * before the idle child, between the two, after the run child. A counter
 * whose run grew less than the idle (noise: an autovacuum, a poll fewer)
 * counts 0.
 */
export function perUnit(before: DatabaseCounters, afterIdle: DatabaseCounters, afterRun: DatabaseCounters, units: number): PerUnit {
  const work = (key: keyof DatabaseCounters): number => {
    const idle = afterIdle[key] - before[key];
    const run = afterRun[key] - afterIdle[key];
    if (idle < 0 || run < 0)
      throw new Error(
        `pg_stat_database.${key} went back (${before[key]}, ${afterIdle[key]}, ${afterRun[key]}): were the statistics reset during the run?`,
      );
    return Math.max(0, run - idle) / units;
  };
  return {
    transactions: work('xact_commit') + work('xact_rollback'),
    inserted: work('tup_inserted'),
    updated: work('tup_updated'),
    deleted: work('tup_deleted'),
    fetched: work('tup_fetched'),
    returned: work('tup_returned'),
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
    if (Date.now() > deadline)
      throw new Error(`sessions still connected to ${database} ${SETTLE_TIMEOUT_MS / 1000} s after its system stopped`);
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
