import type { Logger } from 'pino';
import type { HeartbeatResult } from '../control-plane/control-plane';
import { RuntimeError } from '../runtime-error';

/**
 * Heartbeats a claimed command or frame at a third of its lease. The run is
 * aborted (nothing reported: the work is no longer this worker's) when a
 * heartbeat says the execution was cancelled, when the lease is refused, or
 * when no heartbeat has been answered for a whole lease: by then the reaper
 * has given the work to another worker, and a partitioned or stopped worker
 * that went on would repeat its side effects beside the new owner.
 * Silence is measured on this process's monotonic clock, never its wall clock.
 */
export function keepLease(
  beat: () => Promise<HeartbeatResult>,
  leaseMs: number,
  controller: AbortController,
  log: Logger,
  now: () => number = () => performance.now(),
): NodeJS.Timeout {
  let answeredAt = now();
  const timer = setInterval(
    () => {
      beat()
        .then((result) => {
          answeredAt = now();
          if (result.cancelled) {
            log.info('execution cancelled; aborting');
            controller.abort();
          }
        })
        .catch((error: unknown) => {
          if (error instanceof RuntimeError) {
            log.warn({ code: error.code }, 'lease lost; aborting');
            controller.abort();
          } else if (now() - answeredAt >= leaseMs) {
            log.warn({ err: error }, "no heartbeat answered for a whole lease; the work is another worker's by now: aborting");
            controller.abort();
          } else log.warn({ err: error }, 'heartbeat failed; retrying at the next beat');
        });
    },
    Math.max(100, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return timer;
}
