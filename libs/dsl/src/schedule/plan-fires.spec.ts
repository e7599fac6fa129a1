import { jitterMs } from './jitter';
import { firstFire, planFires, type FireInput } from './plan-fires';

const t = (seconds: number): Date => new Date(Date.UTC(2025, 0, 1, 0, 0, seconds));
const secondsOf = (dates: Date[]): number[] => dates.map((date) => (date.getTime() - t(0).getTime()) / 1000);

function input(overrides: Partial<FireInput> = {}): FireInput {
  return {
    scheduleId: '42',
    timing: { intervalSeconds: 10 },
    overlap: 'skip',
    catchupSeconds: 60,
    jitterSeconds: 0,
    nextFireAt: t(10),
    bufferedFireAt: null,
    lastRunning: false,
    ...overrides,
  };
}

describe('planFires', () => {
  it('starts nothing before the fire time and keeps the state as it was', () => {
    expect(planFires(input(), t(9))).toEqual({
      starts: [],
      skipped: 0,
      lastMissed: null,
      bufferedFireAt: null,
      nextFireAt: t(10),
      nextDueAt: t(10),
    });
  });

  it('starts a due fire time and moves on to the next', () => {
    const plan = planFires(input(), t(10.5));
    expect(plan.starts).toEqual([t(10)]);
    expect(plan.nextFireAt).toEqual(t(20));
  });

  it('skips while the previous run still runs (skip), also one it started in the same pass', () => {
    expect(planFires(input({ lastRunning: true }), t(11))).toMatchObject({ starts: [], skipped: 1, nextFireAt: t(20) });
    const caughtUp = planFires(input(), t(35));
    expect(secondsOf(caughtUp.starts)).toEqual([10]);
    expect(caughtUp.skipped).toBe(2);
    expect(caughtUp.nextFireAt).toEqual(t(40));
  });

  it('holds one fire time while the previous run goes on and drops the others (buffer_one), then starts the held one first', () => {
    const held = planFires(input({ overlap: 'buffer_one', lastRunning: true }), t(35));
    expect(held).toMatchObject({ starts: [], skipped: 2, bufferedFireAt: t(10), nextFireAt: t(40) });
    const released = planFires(input({ overlap: 'buffer_one', bufferedFireAt: held.bufferedFireAt, nextFireAt: held.nextFireAt }), t(36));
    expect(released).toMatchObject({ starts: [t(10)], bufferedFireAt: null, nextFireAt: t(40) });
  });

  it('starts every due fire time whatever runs (allow), at most the pass limit', () => {
    expect(secondsOf(planFires(input({ overlap: 'allow', lastRunning: true }), t(35)).starts)).toEqual([10, 20, 30]);
    const limited = planFires(input({ overlap: 'allow' }), t(35), 2);
    expect(secondsOf(limited.starts)).toEqual([10, 20]);
    expect(limited.nextFireAt).toEqual(t(30));
  });

  it('misses fire times reached more than the catch-up window after they were due, and starts those inside it', () => {
    const plan = planFires(input({ overlap: 'allow', catchupSeconds: 15, nextFireAt: t(10) }), t(40));
    expect(plan.lastMissed).toEqual(t(20));
    expect(secondsOf(plan.starts)).toEqual([30, 40]);
  });

  it('jumps over a long outage in one step', () => {
    const dayLater = new Date(t(0).getTime() + 86_400_000);
    const plan = planFires(input({ timing: { intervalSeconds: 1 }, nextFireAt: t(1), catchupSeconds: 10, overlap: 'allow' }), dayLater);
    expect(plan.lastMissed).toEqual(new Date(dayLater.getTime() - 11_000));
    expect(plan.starts).toHaveLength(11);
    expect(plan.starts[0]).toEqual(new Date(dayLater.getTime() - 10_000));
    expect(plan.nextFireAt).toEqual(new Date(dayLater.getTime() + 1000));
  });

  it('delays each fire time by its own jitter, the same in every pass', () => {
    const jittered = input({ jitterSeconds: 5 });
    const delay = jitterMs('42', t(10), 5);
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThan(5000);
    expect(jitterMs('42', t(10), 5)).toBe(delay);
    expect(planFires(jittered, new Date(t(10).getTime() + delay - 1)).starts).toEqual([]);
    const plan = planFires(jittered, new Date(t(10).getTime() + delay));
    expect(plan.starts).toEqual([t(10)]);
    expect(plan.nextDueAt).toEqual(new Date(t(20).getTime() + jitterMs('42', t(20), 5)));
  });

  it('spreads jitter over the window, differently per schedule', () => {
    const delays = Array.from({ length: 200 }, (_, i) => jitterMs('42', t(i * 10), 10));
    expect(Math.max(...delays)).toBeGreaterThan(8000);
    expect(Math.min(...delays)).toBeLessThan(2000);
    expect(jitterMs('43', t(10), 10)).not.toBe(jitterMs('42', t(10), 10));
  });

  it('follows cron fire times in their time zone', () => {
    const plan = planFires(
      input({ timing: { cron: '0 9 * * *', timezone: 'Europe/Berlin' }, nextFireAt: new Date('2025-01-01T08:00:00Z'), overlap: 'allow' }),
      new Date('2025-01-01T08:00:30Z'),
    );
    expect(plan.starts).toEqual([new Date('2025-01-01T08:00:00Z')]);
    expect(plan.nextFireAt).toEqual(new Date('2025-01-02T08:00:00Z'));
  });
});

describe('firstFire', () => {
  it('starts at the first fire time after now', () => {
    expect(firstFire('42', { intervalSeconds: 10 }, 0, t(10))).toEqual({ nextFireAt: t(20), nextDueAt: t(20) });
  });
});
