import { Counter, Gauge, type Registry } from 'prom-client';

/** What the relay has not published yet: events committed after its cursor, and the age of the oldest. */
export type RelayBacklog = () => Promise<{ events: number; oldestAgeSeconds: number }>;

/** The event relay's metrics (issue 10), on the process's registry. */
export class RelayMetrics {
  readonly published: Counter;
  readonly leader: Gauge;
  readonly errors: Counter;
  readonly elided: Counter;
  readonly corrupt: Counter;
  readonly falseDuplicates: Counter;

  constructor(registry: Registry, backlogOf: RelayBacklog) {
    const registers = [registry];
    this.published = new Counter({
      name: 'noetl_relay_published_total',
      help: 'Events the relay published to JetStream (its rate: published/s)',
      registers,
    });
    this.leader = new Gauge({ name: 'noetl_relay_leader', help: '1 while this process is the relay that publishes the ledger', registers });
    this.errors = new Counter({ name: 'noetl_relay_errors_total', help: 'Relay rounds that failed (retried after a backoff)', registers });
    this.elided = new Counter({
      name: 'noetl_relay_payloads_elided_total',
      help: 'Events too large for a NATS message, published without their payload (readers take them from the ledger)',
      registers,
    });
    this.corrupt = new Counter({
      name: 'noetl_relay_corrupt_events_total',
      help: 'Events whose content no longer matches their checksum (changed behind the runtime): not published; `noetl verify` names them',
      registers,
    });
    this.falseDuplicates = new Counter({
      name: 'noetl_relay_false_duplicates_total',
      help: 'Events JetStream acked as duplicates of messages it did not hold (their proposal lost in a leader change), published again',
      registers,
    });
    // Read at each scrape: the same figure from every process.
    let backlog: Promise<{ events: number; oldestAgeSeconds: number }> | undefined;
    const read = () => (backlog ??= backlogOf().finally(() => setTimeout(() => (backlog = undefined), 0)));
    new Gauge({
      name: 'noetl_relay_backlog_events',
      help: 'Events committed that the relay has not published yet',
      registers,
      async collect() {
        this.set((await read()).events);
      },
    });
    new Gauge({
      name: 'noetl_relay_oldest_unpublished_seconds',
      help: 'Age of the oldest event the relay has not published (0 when none)',
      registers,
      async collect() {
        this.set((await read()).oldestAgeSeconds);
      },
    });
  }
}
