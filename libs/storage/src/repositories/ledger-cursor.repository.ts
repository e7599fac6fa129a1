import type { Queryable } from '../database';
import type { TailPosition } from '../ledger-tail';

/**
 * Every statement against `noetl.ledger_cursor` (STYLE.md "One table, one
 * repository"): how far each reader of the ledger's tail (the relay, the
 * projector's in-process feed) has taken it, in commit order.
 */
export class LedgerCursorRepository {
  /** The reader's cursor; undefined when it has none yet. */
  async get(q: Queryable, name: string): Promise<TailPosition | undefined> {
    const [row] = await q.query<{ tx: string; event_id: string }>(
      `SELECT tx::text AS tx, event_id FROM noetl.ledger_cursor WHERE name = $1`,
      [name],
    );
    return row && { tx: row.tx, eventId: String(row.event_id) };
  }

  /** Moves the reader's cursor to `position`, never back (a reader that lost its lease may save late). */
  async advance(q: Queryable, name: string, position: TailPosition): Promise<void> {
    await q.query(
      `INSERT INTO noetl.ledger_cursor AS c (name, tx, event_id) VALUES ($1, $2::xid8, $3::bigint)
       ON CONFLICT (name) DO UPDATE SET tx = EXCLUDED.tx, event_id = EXCLUDED.event_id, updated_at = now()
        WHERE (c.tx, c.event_id) < (EXCLUDED.tx, EXCLUDED.event_id)`,
      [name, position.tx, position.eventId],
    );
  }
}
