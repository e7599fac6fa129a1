import { readSchedule } from './read-schedule';

function read(raw: unknown): { spec: ReturnType<typeof readSchedule>; problems: string[] } {
  const problems: string[] = [];
  const spec = readSchedule(raw, 'metadata.schedule', (path, message) => problems.push(`${path}: ${message}`));
  return { spec, problems };
}

describe('readSchedule', () => {
  it('fills the defaults of a cron schedule', () => {
    expect(read({ cron: ' */5  * * * * ' })).toEqual({
      spec: { timing: { cron: '*/5 * * * *', timezone: 'UTC' }, payload: {}, overlap: 'skip', catchupSeconds: 60, jitterSeconds: 0 },
      problems: [],
    });
  });

  it('reads every key of an interval schedule', () => {
    const { spec } = read({
      interval_seconds: 30,
      payload: { a: 1 },
      overlap: 'buffer_one',
      catchup_seconds: 600,
      jitter_seconds: 5,
      paused: true,
    });
    expect(spec).toEqual({
      timing: { intervalSeconds: 30 },
      payload: { a: 1 },
      overlap: 'buffer_one',
      catchupSeconds: 600,
      jitterSeconds: 5,
      paused: true,
    });
  });

  it('reports every problem at its path and returns nothing', () => {
    const { spec, problems } = read({
      cron: '61 * * * *',
      timezone: 'Nowhere/Land',
      overlap: 'queue',
      catchup_seconds: 1,
      jitter_seconds: -1,
      payload: [1],
      paused: 'yes',
      every: 1,
    });
    expect(spec).toBeUndefined();
    expect(problems).toEqual([
      'metadata.schedule.every: unknown key "every" (a schedule has cron, interval_seconds, timezone, payload, overlap, catchup_seconds, jitter_seconds, paused)',
      expect.stringMatching(/^metadata\.schedule\.cron: invalid cron expression "61 \* \* \* \*": /),
      'metadata.schedule.timezone: unknown time zone "Nowhere/Land" (an IANA name like "Europe/Berlin")',
      'metadata.schedule.payload: must be a mapping (it is merged over the playbook workload)',
      'metadata.schedule.overlap: must be one of skip, buffer_one, allow',
      'metadata.schedule.catchup_seconds: must be a whole number of seconds, at least 10',
      'metadata.schedule.jitter_seconds: must be a whole number of seconds from 0 to 86400',
      'metadata.schedule.paused: must be true or false',
    ]);
  });

  it.each([
    [{}, 'metadata.schedule: give exactly one of "cron" and "interval_seconds"'],
    [{ cron: '* * * * *', interval_seconds: 5 }, 'metadata.schedule.interval_seconds: give exactly one of "cron" and "interval_seconds"'],
    [{ interval_seconds: 0.5 }, 'metadata.schedule.interval_seconds: must be a whole number of seconds, at least 1'],
    [
      { interval_seconds: 5, timezone: 'UTC' },
      'metadata.schedule.timezone: "timezone" applies to a cron schedule; an interval counts from the Unix epoch',
    ],
    [
      { cron: '* * * * *', timezone: 'Nowhere/Land' },
      'metadata.schedule.timezone: unknown time zone "Nowhere/Land" (an IANA name like "Europe/Berlin")',
    ],
    ['hourly', 'metadata.schedule: must be a mapping like {cron: "0 * * * *"} or {interval_seconds: 60}'],
  ])('rejects %j', (raw, problem) => {
    expect(read(raw).problems).toEqual([problem]);
  });
});
