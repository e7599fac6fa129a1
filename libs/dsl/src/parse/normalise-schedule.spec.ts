import { parseOk, problemsOf } from './testing/playbook-text';

const document = (schedule: string): string =>
  [
    'apiVersion: noetl.io/v2',
    'kind: Playbook',
    'metadata:',
    '  name: nightly',
    schedule,
    'workflow:',
    '- step: start',
    '  tool: {kind: noop}',
  ].join('\n');

describe('metadata.schedule', () => {
  it('is read into the playbook', () => {
    const playbook = parseOk(
      document('  schedule: {cron: "0 2 * * *", timezone: Europe/Berlin, overlap: buffer_one, payload: {full: true}}'),
    );
    expect(playbook.schedule).toEqual({
      timing: { cron: '0 2 * * *', timezone: 'Europe/Berlin' },
      payload: { full: true },
      overlap: 'buffer_one',
      catchupSeconds: 60,
      jitterSeconds: 0,
    });
    expect(parseOk(document('  labels: {}')).schedule).toBeUndefined();
  });

  it('rejects a bad schedule at registration with its path and line', () => {
    expect(problemsOf(document('  schedule:\n    cron: "0 2 * *"\n    overlap: never'))).toEqual([
      {
        path: 'metadata.schedule.cron',
        line: 6,
        column: 11,
        message: 'invalid cron expression "0 2 * *": must have 5 fields (minute hour day-of-month month day-of-week), got 4',
      },
      { path: 'metadata.schedule.overlap', line: 7, column: 14, message: 'must be one of skip, buffer_one, allow' },
    ]);
  });
});
