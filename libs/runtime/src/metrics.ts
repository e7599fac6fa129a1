import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The runtime's Prometheus metrics (DESIGN.md s8), one registry per process
 * (so tests that boot several engines never collide on names). The API
 * serves `registry.metrics()` at GET /metrics.
 */
export class RuntimeMetrics {
  readonly registry = new Registry();

  readonly executionsStarted = new Counter({
    name: 'noetl_executions_started_total',
    help: 'Executions started',
    registers: [this.registry],
  });

  readonly executionsFinished = new Counter({
    name: 'noetl_executions_finished_total',
    help: 'Executions that reached a terminal status, by status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly commandsIssued = new Counter({
    name: 'noetl_commands_issued_total',
    help: 'Commands issued by the scheduler, by tool kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly commandsFinished = new Counter({
    name: 'noetl_commands_finished_total',
    help: 'Commands reported terminal, by status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly claimLatency = new Histogram({
    name: 'noetl_command_claim_latency_seconds',
    help: 'From command.issued to command.claimed',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });

  readonly stepDuration = new Histogram({
    name: 'noetl_step_duration_seconds',
    help: 'Duration of a command run at the worker, by tool kind',
    labelNames: ['kind'] as const,
    buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: [this.registry],
  });

  readonly eventsAppended = new Counter({
    name: 'noetl_events_appended_total',
    help: 'Events appended to the ledger by this process, by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Work waiting for a worker, read from the database at each scrape (the
   * same figure from every process): what KEDA scales the workers on.
   */
  trackBacklog(read: { commands: () => Promise<number>; frames: () => Promise<number> }): void {
    new Gauge({
      name: 'noetl_command_backlog_total',
      help: 'Commands issued and not yet claimed by a worker',
      registers: [this.registry],
      async collect() {
        this.set(await read.commands());
      },
    });
    new Gauge({
      name: 'noetl_frame_backlog_total',
      help: 'Frames of open stages waiting for a worker',
      registers: [this.registry],
      async collect() {
        this.set(await read.frames());
      },
    });
  }
}
