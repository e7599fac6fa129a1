import { foldCallRecords } from './fold-call-records';

describe('foldCallRecords', () => {
  it('folds 100,000 pages of a call and its sink into one record each, attempts and durations summed', () => {
    const pages = Array.from({ length: 100_000 }, () => [
      { task: 'fetch', attempts: 1, durationMs: 2, status: 'ok' as const },
      { task: 'sink', attempts: 1, durationMs: 1, status: 'ok' as const },
    ]).flat();
    expect(foldCallRecords(pages)).toEqual([
      { task: 'fetch', attempts: 100_000, durationMs: 200_000, status: 'ok' },
      { task: 'sink', attempts: 100_000, durationMs: 100_000, status: 'ok' },
    ]);
  });

  it('keeps a failed call apart from the successful ones, with its last error', () => {
    const error = (message: string) => ({ kind: 'server_error' as const, message, retryable: true });
    expect(
      foldCallRecords([
        { task: 'fetch', attempts: 1, durationMs: 1, status: 'ok' },
        { task: 'fetch', attempts: 2, durationMs: 5, status: 'error', error: error('first') },
        { task: 'fetch', attempts: 3, durationMs: 7, status: 'error', error: error('last') },
      ]),
    ).toEqual([
      { task: 'fetch', attempts: 1, durationMs: 1, status: 'ok' },
      { task: 'fetch', attempts: 5, durationMs: 12, status: 'error', error: error('last') },
    ]);
  });
});
