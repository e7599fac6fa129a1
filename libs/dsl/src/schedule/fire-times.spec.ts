import { cronProblem, isTimeZone, nextFireTime, previousFireTime } from './fire-times';

const at = (iso: string): Date => new Date(iso);
const iso = (date: Date): string => date.toISOString();

describe('nextFireTime', () => {
  it('gives the first cron fire time strictly after the given instant', () => {
    const every5 = { cron: '*/5 * * * *', timezone: 'UTC' };
    expect(iso(nextFireTime(every5, at('2025-01-01T00:04:59.999Z')))).toBe('2025-01-01T00:05:00.000Z');
    expect(iso(nextFireTime(every5, at('2025-01-01T00:05:00.000Z')))).toBe('2025-01-01T00:10:00.000Z');
  });

  it('reads a cron expression in its time zone', () => {
    const nineAm = { cron: '0 9 * * *', timezone: 'America/New_York' };
    expect(iso(nextFireTime(nineAm, at('2025-01-01T00:00:00Z')))).toBe('2025-01-01T14:00:00.000Z'); // EST
    expect(iso(nextFireTime(nineAm, at('2025-07-01T00:00:00Z')))).toBe('2025-07-01T13:00:00.000Z'); // EDT
  });

  it('fires a wall time that a DST change repeats once, and one it skips right after the gap', () => {
    const halfPastOne = { cron: '30 1 * * *', timezone: 'America/New_York' };
    const first = nextFireTime(halfPastOne, at('2025-11-02T04:00:00Z'));
    expect(iso(first)).toBe('2025-11-02T05:30:00.000Z');
    expect(iso(nextFireTime(halfPastOne, first))).toBe('2025-11-03T06:30:00.000Z');
    const halfPastTwo = { cron: '30 2 * * *', timezone: 'America/New_York' };
    expect(iso(nextFireTime(halfPastTwo, at('2025-03-09T05:00:00Z')))).toBe('2025-03-09T07:30:00.000Z');
  });

  it('fires an interval at the multiples of its length since the epoch', () => {
    expect(iso(nextFireTime({ intervalSeconds: 60 }, at('2025-01-01T00:00:30.500Z')))).toBe('2025-01-01T00:01:00.000Z');
    expect(iso(nextFireTime({ intervalSeconds: 60 }, at('2025-01-01T00:01:00.000Z')))).toBe('2025-01-01T00:02:00.000Z');
    expect(iso(nextFireTime({ intervalSeconds: 1 }, at('2025-01-01T00:00:00.001Z')))).toBe('2025-01-01T00:00:01.000Z');
  });
});

describe('previousFireTime', () => {
  it('gives the last fire time strictly before the given instant', () => {
    expect(iso(previousFireTime({ intervalSeconds: 60 }, at('2025-01-01T00:01:00.000Z')))).toBe('2025-01-01T00:00:00.000Z');
    expect(iso(previousFireTime({ intervalSeconds: 60 }, at('2025-01-01T00:01:00.001Z')))).toBe('2025-01-01T00:01:00.000Z');
    expect(iso(previousFireTime({ cron: '0 * * * *', timezone: 'UTC' }, at('2025-01-01T05:00:00Z')))).toBe('2025-01-01T04:00:00.000Z');
  });
});

describe('cronProblem', () => {
  it.each(['*/5 * * * *', '0 9 * * mon-fri', '0 0 1 jan,jul *', '15 3 * * thu'])('accepts %s', (cron) => {
    expect(cronProblem(cron)).toBeUndefined();
  });

  it.each([
    ['* * * *', 'must have 5 fields'],
    ['0 * * * * *', 'must have 5 fields'],
    ['61 * * * *', '61'],
    ['0 0 31 2 *', 'day of month'],
    ['H * * * *', 'hashed values'],
  ])('rejects %s', (cron, message) => {
    expect(cronProblem(cron)).toContain(message);
  });
});

describe('isTimeZone', () => {
  it('knows IANA names and nothing else', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
