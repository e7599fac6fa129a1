import type { Backoff } from '../model';
import { seededRandom } from '../testing/seeded-random';
import { nextRetryDelayMs } from './next-retry-delay';

const noRandom = (): number => {
  throw new Error('random must not be called');
};

const backoff = (over: Partial<Backoff>): Backoff => ({
  strategy: 'exponential',
  delaySeconds: 1,
  multiplier: 2,
  maxDelaySeconds: 60,
  jitter: false,
  ...over,
});

describe('nextRetryDelayMs', () => {
  it.each<[Backoff['strategy'], number, number[]]>([
    ['none', 2, [0, 0, 0, 0]],
    ['fixed', 2, [2000, 2000, 2000, 2000]],
    ['linear', 2, [2000, 4000, 6000, 8000]],
    ['exponential', 2, [2000, 4000, 8000, 16000]],
    ['exponential', 0.5, [500, 1000, 2000, 4000]],
  ])('%s with delay %s waits %j before retries 1..4', (strategy, delaySeconds, expected) => {
    const waits = [1, 2, 3, 4].map((n) => nextRetryDelayMs(backoff({ strategy, delaySeconds }), n, noRandom));
    expect(waits).toEqual(expected);
  });

  it('uses the multiplier for exponential', () => {
    expect([1, 2, 3].map((n) => nextRetryDelayMs(backoff({ multiplier: 3 }), n, noRandom))).toEqual([1000, 3000, 9000]);
  });

  it.each<[Backoff['strategy'], number]>([
    ['exponential', 10],
    ['linear', 100],
    ['fixed', 1],
  ])('caps %s at max_delay', (strategy, n) => {
    expect(nextRetryDelayMs(backoff({ strategy, delaySeconds: 5, maxDelaySeconds: 4 }), n, noRandom)).toBe(4000);
  });

  it('caps an exponential that overflows to Infinity', () => {
    expect(nextRetryDelayMs(backoff({ multiplier: 10 }), 2000, noRandom)).toBe(60000);
  });

  it('waits nothing for a zero delay, however large n is', () => {
    expect(nextRetryDelayMs(backoff({ delaySeconds: 0, multiplier: 10 }), 2000, noRandom)).toBe(0);
  });

  it('waits the cap for a NaN wait and nothing for a negative one (hand-built backoffs)', () => {
    expect(nextRetryDelayMs(backoff({ delaySeconds: Number.NaN }), 1, noRandom)).toBe(60000);
    expect(nextRetryDelayMs(backoff({ strategy: 'fixed', delaySeconds: -3 }), 1, noRandom)).toBe(0);
  });

  it('treats n below 1 or not finite as the first retry', () => {
    expect(nextRetryDelayMs(backoff({}), 0, noRandom)).toBe(1000);
    expect(nextRetryDelayMs(backoff({}), Number.NaN, noRandom)).toBe(1000);
    expect(nextRetryDelayMs(backoff({ strategy: 'linear' }), 2.7, noRandom)).toBe(2000);
  });

  it('keeps jittered waits within [0.5, 1.5) of the capped wait', () => {
    const random = seededRandom(42);
    for (let n = 1; n <= 10; n += 1) {
      const capped = Math.min(1000 * 2 ** (n - 1), 60000);
      for (let sample = 0; sample < 200; sample += 1) {
        const ms = nextRetryDelayMs(backoff({ jitter: true }), n, random);
        expect(ms).toBeGreaterThanOrEqual(capped * 0.5);
        expect(ms).toBeLessThan(capped * 1.5);
      }
    }
  });

  it('is deterministic for a seeded random source', () => {
    const run = (): number[] => {
      const random = seededRandom(7);
      return [1, 2, 3, 4].map((n) => nextRetryDelayMs(backoff({ jitter: true }), n, random));
    };
    expect(run()).toEqual(run());
  });

  it('applies the jitter factor at both ends of [0, 1)', () => {
    expect(nextRetryDelayMs(backoff({ jitter: true }), 3, () => 0)).toBe(2000);
    expect(nextRetryDelayMs(backoff({ jitter: true }), 3, () => 0.999999)).toBe(6000);
    expect(nextRetryDelayMs(backoff({ jitter: true, maxDelaySeconds: 2 }), 3, () => 0.25)).toBe(1500);
  });

  it('does not call random for a zero wait', () => {
    expect(nextRetryDelayMs(backoff({ strategy: 'none', jitter: true }), 3, noRandom)).toBe(0);
  });

  it('waits at least the minimum (Retry-After)', () => {
    expect(nextRetryDelayMs(backoff({ strategy: 'none' }), 1, noRandom, 1000)).toBe(1000);
    expect(nextRetryDelayMs(backoff({}), 1, noRandom, 250.2)).toBe(1000);
    expect(nextRetryDelayMs(backoff({ strategy: 'fixed', delaySeconds: 0.5 }), 1, noRandom, 999.1)).toBe(1000);
    expect(nextRetryDelayMs(backoff({}), 1, noRandom, -5)).toBe(1000);
  });

  it('rounds to whole milliseconds', () => {
    expect(nextRetryDelayMs(backoff({ strategy: 'fixed', delaySeconds: 0.0004 }), 1, noRandom)).toBe(0);
    expect(nextRetryDelayMs(backoff({ strategy: 'fixed', delaySeconds: 0.0016 }), 1, noRandom)).toBe(2);
  });
});
