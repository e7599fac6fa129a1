import { nextFireTime, previousFireTime } from './fire-times';
import { jitterMs } from './jitter';
import type { OverlapPolicy, ScheduleTiming } from './schedule-spec';

/** What one pass over a due schedule knows: its rules and its durable fire state. */
export interface FireInput {
  scheduleId: string;
  timing: ScheduleTiming;
  overlap: OverlapPolicy;
  catchupSeconds: number;
  jitterSeconds: number;
  /** The earliest fire time not handled yet. */
  nextFireAt: Date;
  /** `buffer_one`: the fire time held while the previous run goes on. */
  bufferedFireAt: Date | null;
  /** Whether the last execution this schedule started is still running. */
  lastRunning: boolean;
}

/** What to do now, and the fire state to keep. */
export interface FirePlan {
  /** Fire times to start now, oldest first. */
  starts: Date[];
  /** Fire times dropped by the overlap policy. */
  skipped: number;
  /** The latest fire time reached more than `catchupSeconds` after it was due (nothing ran), if any. */
  lastMissed: Date | null;
  bufferedFireAt: Date | null;
  nextFireAt: Date;
  /** When `nextFireAt` is due: the fire time plus its jitter. */
  nextDueAt: Date;
}

/** Fire times started by one pass at most; the rest wait for the next pass, still inside their window. */
export const MAX_STARTS_PER_PASS = 100;
/** Fire times looked at by one pass at most (a short interval with a long catch-up window). */
const MAX_SCAN_PER_PASS = 1000;

/**
 * The schedule rules (DESIGN.md s6), pure: time is passed in. A buffered fire
 * time starts first once the previous run has ended. Then each fire time due
 * by `now` (its time plus its jitter): one reached more than `catchupSeconds`
 * after it was due is missed (fire times certainly missed are jumped over in
 * one step); otherwise the overlap policy decides while the previous run
 * (including one started in this pass) still runs: `skip` drops it,
 * `buffer_one` holds it unless one is held already (then drops it), `allow`
 * starts it regardless.
 */
export function planFires(input: FireInput, now: Date, maxStarts = MAX_STARTS_PER_PASS): FirePlan {
  const due = (fireTime: Date): number => fireTime.getTime() + jitterMs(input.scheduleId, fireTime, input.jitterSeconds);
  const windowMs = input.catchupSeconds * 1000;
  const starts: Date[] = [];
  let skipped = 0;
  let lastMissed: Date | null = null;
  let running = input.lastRunning;
  let buffered = input.bufferedFireAt;
  if (buffered && !running) {
    starts.push(buffered);
    buffered = null;
    running = true;
  }

  let fireTime = input.nextFireAt;
  // Every fire time before the cutoff is due more than the window ago, whatever its jitter.
  const cutoff = new Date(now.getTime() - windowMs - input.jitterSeconds * 1000);
  if (fireTime < cutoff) {
    lastMissed = previousFireTime(input.timing, cutoff);
    fireTime = nextFireTime(input.timing, new Date(cutoff.getTime() - 1));
  }
  for (let scanned = 0; scanned < MAX_SCAN_PER_PASS && starts.length < maxStarts && due(fireTime) <= now.getTime(); scanned++) {
    if (now.getTime() - due(fireTime) > windowMs) {
      lastMissed = fireTime;
    } else if (!running || input.overlap === 'allow') {
      starts.push(fireTime);
      running = true;
    } else if (input.overlap === 'buffer_one' && buffered === null) {
      buffered = fireTime;
    } else {
      skipped += 1;
    }
    fireTime = nextFireTime(input.timing, fireTime);
  }
  return { starts, skipped, lastMissed, bufferedFireAt: buffered, nextFireAt: fireTime, nextDueAt: new Date(due(fireTime)) };
}

/** The first fire time after `now` and when it is due: where a new or resumed schedule starts. */
export function firstFire(
  scheduleId: string,
  timing: ScheduleTiming,
  jitterSeconds: number,
  now: Date,
): { nextFireAt: Date; nextDueAt: Date } {
  const nextFireAt = nextFireTime(timing, now);
  return { nextFireAt, nextDueAt: new Date(nextFireAt.getTime() + jitterMs(scheduleId, nextFireAt, jitterSeconds)) };
}
