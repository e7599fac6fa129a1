import { sinceOption } from './executions.command';

describe('noetl executions list --since', () => {
  const now = Date.parse('2026-03-01T12:00:00.000Z');

  it('takes a duration ago (30m, 2h, 7d) or an ISO time', () => {
    expect(sinceOption('30m', now)).toBe('2026-03-01T11:30:00.000Z');
    expect(sinceOption('2h', now)).toBe('2026-03-01T10:00:00.000Z');
    expect(sinceOption('7d', now)).toBe('2026-02-22T12:00:00.000Z');
    expect(sinceOption('2026-01-01T00:00:00Z', now)).toBe('2026-01-01T00:00:00Z');
  });

  it('refuses anything else with what it expected', () => {
    expect(() => sinceOption('yesterday', now)).toThrow('expected an ISO time or a duration like 30m, 2h, 7d; got "yesterday"');
  });
});
