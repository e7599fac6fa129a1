import { Queue, Worker } from 'bullmq';
import type { TenantScope } from '@noetl/storage';
import pino, { type Logger } from 'pino';

/** The BullMQ queue of due timers, shared by every scheduler of a deployment. */
export const TIMER_QUEUE = 'noetl-timers';
const TIMER_DUE_JOB = 'timer-due';
/** Runs of a job whose handler failed (the database was unreachable, say); past them the sweep fires the timer. */
const JOB_ATTEMPTS = 5;
const JOB_BACKOFF_MS = 1000;
/** Timers fired at once by one process: each is one short transaction. */
const WORKER_CONCURRENCY = 4;
/** How long `open` waits for Redis; a lane opened without it starts scheduling once it connects. */
const CONNECT_WAIT_MS = 3000;

interface TimerDueJob {
  timer_id: string;
  /** Whose timer: one lane serves every tenant of the deployment. */
  tenant_id: string;
  organization_id: string;
}

export interface RetryLaneOptions {
  /** Default `noetl-timers`. */
  queueName?: string;
  /** Redis key prefix of the queue (BullMQ's default `bull` when absent). */
  prefix?: string;
  logger?: Logger;
}

/**
 * The BullMQ delayed-retry lane (DESIGN.md s4 "Retry"): a delayed job per
 * durable timer, so a retry fires on time in whichever scheduler takes the
 * job. Redis is an accelerator only (invariant 5): the timer row in Postgres
 * is the authority and the sweep fires every due timer this lane misses
 * (Redis down, flushed, a job dropped), so nothing here throws at the
 * scheduler, and a duplicate or late job is harmless (firing is idempotent).
 */
export class RetryLane {
  private worker?: Worker<TimerDueJob>;
  private connected = false;
  private readonly firing = new Set<Promise<void>>();

  private constructor(
    private readonly queue: Queue<TimerDueJob>,
    private readonly connection: { url: string; prefix: string | undefined },
    private readonly logger: Logger,
  ) {
    // Until the first connection, `queue.add` would wait for Redis; `schedule` skips instead.
    queue.waitUntilReady().then(
      () => (this.connected = true),
      () => undefined,
    );
  }

  static async open(redisUrl: string, options: RetryLaneOptions = {}): Promise<RetryLane> {
    const logger = options.logger ?? pino({ level: 'silent' });
    const { prefix } = options;
    const queue = new Queue<TimerDueJob>(options.queueName ?? TIMER_QUEUE, {
      // Without Redis a command fails at once instead of queueing in memory: the sweep has the timer anyway.
      connection: { url: redisUrl, enableOfflineQueue: false },
      prefix,
      defaultJobOptions: {
        attempts: JOB_ATTEMPTS,
        backoff: { type: 'exponential', delay: JOB_BACKOFF_MS },
        removeOnComplete: true,
        removeOnFail: true,
      },
    });
    queue.on('error', (error) => logger.warn({ err: error }, 'retry lane: Redis error; the timer sweep covers it'));
    const lane = new RetryLane(queue, { url: redisUrl, prefix }, logger);
    if (!(await resolvesWithin(queue.waitUntilReady(), CONNECT_WAIT_MS))) {
      logger.warn(`retry lane: Redis did not answer within ${CONNECT_WAIT_MS} ms; timers wait for the sweep until it does`);
    }
    return lane;
  }

  /**
   * A delayed job due at `dueAt`, keyed by the timer (a second schedule of
   * the same timer adds nothing while the first job exists). Never throws:
   * without Redis it logs and the sweep fires the timer.
   */
  async schedule(timerId: string, dueAt: Date, scope: TenantScope): Promise<void> {
    if (!this.connected) {
      this.logger.warn({ timer_id: timerId }, 'retry lane: Redis not connected; the timer sweep fires this timer');
      return;
    }
    try {
      await this.queue.add(
        TIMER_DUE_JOB,
        { timer_id: timerId, tenant_id: scope.tenantId, organization_id: scope.organizationId },
        { jobId: jobIdOf(timerId), delay: Math.max(0, dueAt.getTime() - Date.now()) },
      );
    } catch (error) {
      this.logger.warn({ err: error, timer_id: timerId }, 'retry lane: could not schedule on Redis; the timer sweep fires this timer');
    }
  }

  /** Consumes due jobs: `onDue` fires the timer; its rejection makes BullMQ run the job again after a backoff. */
  start(onDue: (timerId: string, scope: TenantScope) => Promise<void>): void {
    if (this.worker) throw new Error('the retry lane is already started');
    const due = ({ data }: { data: TimerDueJob }) =>
      onDue(data.timer_id, { tenantId: data.tenant_id, organizationId: data.organization_id });
    this.worker = new Worker<TimerDueJob>(this.queue.name, (job) => this.track(due(job)), {
      connection: { url: this.connection.url },
      prefix: this.connection.prefix,
      concurrency: WORKER_CONCURRENCY,
    });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'retry lane: Redis error; the timer sweep covers it'));
    this.worker.on('failed', (job, error) =>
      this.logger.warn({ err: error, timer_id: job?.data.timer_id, attempt: job?.attemptsMade }, 'retry lane: firing a timer failed'),
    );
  }

  /**
   * Stops consuming and closes the Redis connections; resolves once the
   * timers being fired are. BullMQ's graceful close waits on Redis forever
   * when it is down, so the worker is closed at once and the firings are
   * awaited here (a job cut short is taken again later, and finds its timer fired).
   */
  async close(): Promise<void> {
    await this.worker?.close(true);
    await Promise.allSettled([...this.firing]);
    await this.queue.close();
  }

  private track(firing: Promise<void>): Promise<void> {
    this.firing.add(firing);
    void firing.finally(() => this.firing.delete(firing)).catch(() => undefined);
    return firing;
  }
}

/** BullMQ refuses integer job ids, and timer ids are integers: the job id is the timer id, prefixed. */
function jobIdOf(timerId: string): string {
  return `timer-${timerId}`;
}

/** Whether `promise` resolved within `ms` (its rejection is thrown). */
async function resolvesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
