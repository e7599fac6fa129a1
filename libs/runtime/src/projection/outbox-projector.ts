import type { OutboxRepository } from '@noetl/storage';
import type { Logger } from 'pino';
import type { FlushProjections, ProjectEvents } from './stream-projector';

const BATCH = 500;
/** Published rows deleted per statement. */
const PURGE_BATCH = 10_000;

/**
 * The projector's feed without NATS (issue 10): it drains the outbox itself,
 * in committed order, and marks each batch published once its executions are
 * projected, in the same transaction. Several drainers share the outbox
 * (FOR UPDATE SKIP LOCKED); a crash before the commit leaves the batch for
 * the next. Projected rows are deleted after the outbox retention, as the relay's are.
 */
export class OutboxProjector {
  private timer?: NodeJS.Timeout;
  private draining?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly project: ProjectEvents,
    private readonly flush: FlushProjections,
    private readonly logger: Logger,
    private readonly timing: { pollMs: number; retentionMs: number },
  ) {}

  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.draining = this.drain()
        .catch((error: unknown) => this.logger.error({ err: error }, 'projecting the outbox failed; the next poll retries'))
        .finally(() => {
          this.draining = undefined;
          if (!this.stopped) this.timer = setTimeout(tick, this.timing.pollMs);
        });
    };
    tick();
  }

  /** Projects every committed outbox row; resolves when none is left. */
  async drain(): Promise<void> {
    while ((await this.outbox.publishPending(BATCH, (messages) => this.project(messages.map((m) => m.envelope)).then(() => undefined))) > 0);
    await this.flush();
    await this.outbox.purgePublished(this.timing.retentionMs, PURGE_BATCH);
  }

  /** Rows not projected yet. */
  async lag(): Promise<number> {
    return (await this.outbox.backlog()).rows;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.draining;
    await this.flush({ all: true });
  }
}
