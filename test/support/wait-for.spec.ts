import { waitFor } from './wait-for';

describe('waitFor', () => {
  it('returns the first result that is neither undefined nor false', async () => {
    let calls = 0;
    const value = await waitFor(async () => (++calls < 3 ? undefined : calls), { timeoutMs: 1_000, intervalMs: 1 });
    expect(value).toBe(3);
  });

  it('keeps polling through errors and names the last one at the deadline', async () => {
    await expect(
      waitFor(
        async () => {
          throw new Error('not yet');
        },
        { timeoutMs: 30, intervalMs: 5, description: 'the impossible' },
      ),
    ).rejects.toThrow(/timed out after 30 ms waiting for the impossible; last error: Error: not yet/);
  });

  it('treats false as not yet', async () => {
    await expect(waitFor(async () => false, { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(/timed out/);
  });
});
