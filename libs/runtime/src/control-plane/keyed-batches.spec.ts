import { KeyedBatches } from './keyed-batches';

describe('KeyedBatches', () => {
  it('runs the first item at once, and what arrives meanwhile as the next batches, each key on its own', async () => {
    const runs: string[] = [];
    const release: (() => void)[] = [];
    const batches = new KeyedBatches<number>(3, async (key, batch) => {
      runs.push(`${key}:${batch.join(',')}`);
      await new Promise<void>((resolve) => release.push(resolve));
    });
    batches.add('a', 1);
    batches.add('b', 1);
    for (const item of [2, 3, 4, 5]) batches.add('a', item);
    expect(runs).toEqual(['a:1', 'b:1']);
    while (release.length > 0) {
      release.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(runs).toEqual(['a:1', 'b:1', 'a:2,3,4', 'a:5']);
    batches.add('a', 6);
    expect(runs.at(-1)).toBe('a:6');
  });
});
