import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolCount } from '@noetl/storage';

/** The phases of a step `noetl_step_span_seconds` times. */
export const STEP_SPANS = ['plan', 'append', 'claim', 'run', 'report'] as const;
export type StepSpan = (typeof STEP_SPANS)[number];

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

  /** Template renders past the inline slice, done again in a render thread (NOETL_TEMPLATE_INLINE_WORK), by the role that rendered. */
  readonly templateRendersOffloaded = new Counter({
    name: 'noetl_template_renders_offloaded_total',
    help: 'Template renders too heavy for the event loop, moved to a render thread, by role (scheduler, worker)',
    labelNames: ['role'] as const,
    registers: [this.registry],
  });

  /** Backpressure of streamed results: the chunks after which the producing worker waited for its consumers. */
  readonly streamWaits = new Counter({
    name: 'noetl_stream_backpressure_waits_total',
    help: 'Chunks of a streamed result after which the worker waited, NOETL_STREAM_MAX_PENDING_CHUNKS being unconsumed',
    registers: [this.registry],
  });

  /** The most chunks of one stream seen in flight at a report (reported, not yet consumed): at most NOETL_STREAM_MAX_PENDING_CHUNKS. */
  readonly streamPendingChunks = new Gauge({
    name: 'noetl_stream_pending_chunks_max',
    help: 'The most chunks of a streamed result seen reported and not yet consumed, at a report',
    registers: [this.registry],
  });

  readonly stepDuration = new Histogram({
    name: 'noetl_step_duration_seconds',
    help: 'Duration of a command run at the worker, by tool kind',
    labelNames: ['kind'] as const,
    buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: [this.registry],
  });

  /** Reports and claims sent without a read (expected-writes.ts) whose guard found the command or its stream moved on: they went again with a read. */
  readonly rereads = new Counter({
    name: 'noetl_control_plane_rereads_total',
    help: 'Reports and claims this process sent without a read that their guard sent back to read the command under the lock',
    registers: [this.registry],
  });

  readonly eventsAppended = new Counter({
    name: 'noetl_events_appended_total',
    help: 'Events appended to the ledger by this process, by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  /**
   * Where a step's time goes (issue 12, seed 002 s4), one span per phase:
   * `plan` a scheduler pass (fold, planner, derived rows, cursor, commit),
   * `append` one ledger append inside any transaction (so also inside the
   * others), `claim` a worker's claim of a command or frame (transaction and
   * render scope), `run` the tool's run at the worker, `report` a terminal
   * report's transaction. `npm run bench` divides their sums by the steps.
   */
  readonly stepSpan = new Histogram({
    name: 'noetl_step_span_seconds',
    help: 'Duration of one phase of a step: plan, append, claim, run, report',
    labelNames: ['span'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });

  /** Runs `work` and observes its duration as `span` (also when it throws). */
  async span<T>(span: StepSpan, work: () => Promise<T>): Promise<T> {
    const end = this.stepSpan.startTimer({ span });
    try {
      return await work();
    } finally {
      end();
    }
  }

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Work waiting for a worker, read from the database at each scrape (the
   * same figure from every process): what KEDA scales the workers on.
   */
  /**
   * The backlog gauges, labelled by worker pool (`pool=""`: work without a
   * pool, always present): what KEDA scales each pool's workers by.
   */
  trackBacklog(read: { commands: () => Promise<PoolCount[]>; frames: () => Promise<PoolCount[]> }): void {
    const perPool = async (gauge: Gauge<'pool'>, counts: Promise<PoolCount[]>): Promise<void> => {
      const rows = await counts;
      gauge.reset();
      gauge.set({ pool: '' }, 0);
      for (const row of rows) gauge.set({ pool: row.pool ?? '' }, row.count);
    };
    new Gauge({
      name: 'noetl_command_backlog_total',
      help: 'Commands issued and not yet claimed by a worker, per worker pool',
      labelNames: ['pool'],
      registers: [this.registry],
      async collect() {
        await perPool(this, read.commands());
      },
    });
    new Gauge({
      name: 'noetl_frame_backlog_total',
      help: 'Frames of open stages waiting for a worker, per worker pool',
      labelNames: ['pool'],
      registers: [this.registry],
      async collect() {
        await perPool(this, read.frames());
      },
    });
  }
}
