/** Outcome of asking a sliding window for room. */
export type WindowDecision = { accepted: true; inWindow: number } | { accepted: false; inWindow: number; oldestMs: number | undefined };

/**
 * A sliding window of accepted-request timestamps (milliseconds, from any
 * monotonic clock). Entries `windowMs` old or older are dropped before each
 * check; a rejected request is not recorded.
 */
export class RateWindow {
  private stamps: number[] = [];

  constructor(private readonly windowMs = 1000) {}

  tryAcquire(limit: number, nowMs: number): WindowDecision {
    this.stamps = this.stamps.filter((stamp) => nowMs - stamp < this.windowMs);
    if (this.stamps.length >= limit) {
      return { accepted: false, inWindow: this.stamps.length, oldestMs: this.stamps[0] };
    }
    this.stamps.push(nowMs);
    return { accepted: true, inWindow: this.stamps.length };
  }

  clear(): void {
    this.stamps = [];
  }
}
