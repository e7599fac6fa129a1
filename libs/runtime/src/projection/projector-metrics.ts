import { Counter, Gauge, type Registry } from 'prom-client';

/** The projector's metrics (issue 10), on the process's registry, labelled by shard. */
export class ProjectorMetrics {
  readonly events: Counter<'shard'>;
  readonly stale: Counter<'shard'>;
  readonly errors: Counter<'shard'>;
  readonly corrupt: Counter<'shard'>;
  readonly lagMs: Gauge<'shard'>;
  readonly lagEvents: Gauge<'shard'>;
  readonly lastEventId: Gauge<'shard'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.events = new Counter({
      name: 'noetl_projector_events_total',
      help: 'Events folded into projections',
      labelNames: ['shard'],
      registers,
    });
    this.stale = new Counter({
      name: 'noetl_projector_stale_total',
      help: 'Deliveries or writes a projection had already passed (duplicates, stale redeliveries): they changed nothing',
      labelNames: ['shard'],
      registers,
    });
    this.errors = new Counter({
      name: 'noetl_projector_errors_total',
      help: 'Deliveries the projector failed to fold (redelivered)',
      labelNames: ['shard'],
      registers,
    });
    this.corrupt = new Counter({
      name: 'noetl_projector_corrupt_events_total',
      help: 'Events found changed behind the runtime (checksum mismatch): their execution is not projected past them',
      labelNames: ['shard'],
      registers,
    });
    this.lagMs = new Gauge({
      name: 'noetl_projector_lag_ms',
      help: 'Age of the last folded event when it was folded',
      labelNames: ['shard'],
      registers,
    });
    this.lagEvents = new Gauge({
      name: 'noetl_projector_lag_events',
      help: "Events waiting for this shard (its JetStream consumers' pending)",
      labelNames: ['shard'],
      registers,
    });
    this.lastEventId = new Gauge({
      name: 'noetl_projector_last_event_id',
      help: 'Id of the last event folded',
      labelNames: ['shard'],
      registers,
    });
  }
}
