import type { Queryable } from '../database';

/** Every statement against `noetl.leadership` (STYLE.md "One table, one repository"). */
export class LeadershipRepository {
  /**
   * Takes or renews the lease of `role` for `holder` for `leaseMs`, in one
   * statement: true when `holder` leads now (it held the row, or the row's
   * lease ran out, by the database's clock, or there was none).
   */
  async lead(q: Queryable, role: string, holder: string, leaseMs: number): Promise<boolean> {
    const rows = await q.query(
      `INSERT INTO noetl.leadership AS l (role, holder, lease_until)
       VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000))
       ON CONFLICT (role) DO UPDATE
          SET holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until,
              since = CASE WHEN l.holder = EXCLUDED.holder THEN l.since ELSE now() END
        WHERE l.holder = EXCLUDED.holder OR l.lease_until < now()
       RETURNING 1`,
      [role, holder, leaseMs],
    );
    return rows.length > 0;
  }

  /** Gives the lease up (a clean stop): another process may lead at once. */
  async resign(q: Queryable, role: string, holder: string): Promise<void> {
    await q.query('DELETE FROM noetl.leadership WHERE role = $1 AND holder = $2', [role, holder]);
  }
}
