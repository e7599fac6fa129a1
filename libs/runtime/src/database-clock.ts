import type { Queryable } from '@noetl/storage';

/** How often the clock measures the database's again (a host clock drifts, or is stepped by NTP). */
export const DATABASE_CLOCK_SYNC_MS = 10_000;

/**
 * This process's idea of the database's clock: the local clock plus the
 * offset measured by `sync` (half the round trip counted). Leases are
 * granted (`lease_until`) with it and found expired by `now()` of the
 * database, so a host whose clock runs minutes off neither grants leases
 * that are already over nor keeps expired ones (issue 14, clock skew).
 */
export class DatabaseClock {
  private offsetMs = 0;

  constructor(private readonly local: () => number = () => Date.now()) {}

  now(): Date {
    return new Date(this.local() + this.offsetMs);
  }

  async sync(q: Queryable): Promise<void> {
    const sent = this.local();
    const [row] = await q.query<{ ms: string }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS ms');
    const received = this.local();
    if (row) this.offsetMs = Number(row.ms) - Math.round((sent + received) / 2);
  }
}
