import { setTimeout as delay } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { Limits } from './limits';
import { ProbeState } from './probe-state';
import { RateWindow } from './rate-window';

/** Time sources: a monotonic clock for windows and durations, and the wall clock for event stamps. */
export interface Clock {
  monotonicMs(): number;
  epochSeconds(): number;
}

export const systemClock: Clock = {
  monotonicMs: () => performance.now(),
  epochSeconds: () => Date.now() / 1000,
};

/** All process-global state of the test server (TEST_SERVER.md §0 "In-memory state"). */
export class ServerState {
  readonly probe: ProbeState;
  /** Flaky attempt counter per page number. */
  readonly flakyAttempts = new Map<number, number>();
  readonly rateLimitedWindow = new RateWindow();
  readonly patientRecordsWindow = new RateWindow();
  readonly pftWindow = new RateWindow();
  private readonly shutdown = new AbortController();

  constructor(
    readonly limits: Limits,
    readonly clock: Clock = systemClock,
    readonly random: () => number = Math.random,
  ) {
    this.probe = new ProbeState(limits.CONCURRENCY_PROBE_MAX_EVENTS);
  }

  /** Waits on a timer, so other requests keep being served; rejects when the server shuts down. */
  async sleep(seconds: number): Promise<void> {
    if (!(seconds > 0)) return;
    await delay(seconds * 1000, undefined, { signal: this.shutdown.signal });
  }

  /** Clears counters, the probe buffer and every rate window (`POST /__reset`). */
  reset(): void {
    this.probe.reset();
    this.flakyAttempts.clear();
    this.rateLimitedWindow.clear();
    this.patientRecordsWindow.clear();
    this.pftWindow.clear();
  }

  /** True once the server is shutting down. */
  get closing(): boolean {
    return this.shutdown.signal.aborted;
  }

  /** Cancels every pending sleep. */
  abortSleeps(): void {
    this.shutdown.abort();
  }
}
