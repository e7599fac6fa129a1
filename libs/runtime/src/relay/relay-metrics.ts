import { Counter, Gauge, type Registry } from 'prom-client';
import type { OutboxRepository } from '@noetl/storage';

/** The outbox relay's metrics (issue 10), on the process's registry. */
export class RelayMetrics {
  readonly published: Counter;
  readonly leader: Gauge;
  readonly errors: Counter;
  readonly elided: Counter;

  constructor(registry: Registry, outbox: OutboxRepository) {
    const registers = [registry];
    this.published = new Counter({ name: 'noetl_outbox_published_total', help: 'Events the relay published to JetStream (its rate: published/s)', registers });
    this.leader = new Gauge({ name: 'noetl_outbox_relay_leader', help: '1 while this process is the tenant relay that publishes the outbox', registers });
    this.errors = new Counter({ name: 'noetl_outbox_relay_errors_total', help: 'Relay rounds that failed (retried after a backoff)', registers });
    this.elided = new Counter({
      name: 'noetl_outbox_payloads_elided_total',
      help: "Events too large for a NATS message, published without their payload (readers take them from the ledger)",
      registers,
    });
    // Read at each scrape: the same figure from every process.
    let backlog: Promise<{ rows: number; oldestAgeSeconds: number }> | undefined;
    const read = () => (backlog ??= outbox.backlog().finally(() => setTimeout(() => (backlog = undefined), 0)));
    new Gauge({
      name: 'noetl_outbox_backlog_total',
      help: 'Outbox rows not yet published',
      registers,
      async collect() {
        this.set((await read()).rows);
      },
    });
    new Gauge({
      name: 'noetl_outbox_oldest_unpublished_seconds',
      help: 'Age of the oldest unpublished outbox row (0 when none)',
      registers,
      async collect() {
        this.set((await read()).oldestAgeSeconds);
      },
    });
  }
}
