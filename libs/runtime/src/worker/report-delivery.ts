import type { Logger } from 'pino';
import { RuntimeError } from '../runtime-error';

/** The first pause before a failed report is sent again, and the longest. */
const REPORT_RETRY_MS = 200;
const REPORT_RETRY_MAX_MS = 2_000;

/**
 * Sends a terminal report, again after a failure that is not a refusal (a
 * lock waited for past the database's lock timeout, a dropped connection),
 * with backoff, for up to a lease: the heartbeat keeps the lease meanwhile,
 * and a report lost here would have the work run again. A refusal
 * (already ended, lease lost) is final.
 */
export async function deliver(send: () => Promise<void>, leaseMs: number, log: Logger, what: string): Promise<void> {
  const deadline = Date.now() + leaseMs;
  for (let pause = REPORT_RETRY_MS; ; pause = Math.min(pause * 2, REPORT_RETRY_MAX_MS)) {
    try {
      await send();
      return;
    } catch (error) {
      if (error instanceof RuntimeError) {
        log.warn({ code: error.code }, `${what} refused: ${error.message}`);
        return;
      }
      if (Date.now() + pause >= deadline) throw error;
      log.warn({ err: error }, `${what} failed; sending it again`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** Releases work cut short by the shutdown; refused (it ended meanwhile) is fine. */
export async function giveBack(release: () => Promise<void>, log: Logger): Promise<void> {
  await release().catch((error: unknown) => {
    if (error instanceof RuntimeError) log.info({ code: error.code }, `release refused: ${error.message}`);
    else log.warn({ err: error }, 'release failed; the lease runs out and the reaper re-offers it');
  });
}
