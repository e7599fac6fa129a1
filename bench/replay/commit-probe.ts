import { Client } from 'pg';

/** How often the probe looks for newly committed events. */
const PROBE_EVERY_MS = 10;

/**
 * When each event became visible to readers of the ledger, to within one
 * probe: a connection of its own asks every 10 ms for the events of every
 * transaction that had not ended at its previous look (the previous
 * snapshot's xmin onwards, on `idx_event_tail`), so each event is seen at
 * the first look after its commit. `visibleAfter(id)` is the start of the
 * look before that one: the event committed after it, so a lag counted from
 * it is an upper bound, off by at most one probe period.
 */
export class CommitProbe {
  private readonly seen = new Map<string, number>();
  private stopped = false;
  private running?: Promise<void>;

  private constructor(private readonly client: Client) {}

  static async start(databaseUrl: string): Promise<CommitProbe> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const probe = new CommitProbe(client);
    probe.running = probe.run();
    return probe;
  }

  visibleAfter(eventId: string): number | undefined {
    return this.seen.get(eventId);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.running;
    await this.client.end();
  }

  private async run(): Promise<void> {
    let from = '0';
    let previousLook = Date.now();
    while (!this.stopped) {
      const look = Date.now();
      const { rows } = await this.client.query<{ event_id: string; watermark: string }>(
        `SELECT event_id::text, w.xmin::text AS watermark
           FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin) w
           LEFT JOIN noetl.event e ON e.tx >= $1::xid8`,
        [from],
      );
      for (const row of rows) if (row.event_id !== null && !this.seen.has(row.event_id)) this.seen.set(row.event_id, previousLook);
      from = rows[0]?.watermark ?? from;
      previousLook = look;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, PROBE_EVERY_MS - (Date.now() - look))));
    }
  }
}
