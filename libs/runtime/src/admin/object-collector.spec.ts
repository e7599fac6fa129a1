import { ObjectCollector } from './object-collector';

describe('ObjectCollector', () => {
  it('serves every request made during a run with one more run after it', async () => {
    let runs = 0;
    let release!: () => void;
    const collector = new ObjectCollector(async () => {
      runs += 1;
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
    });

    const first = collector.request();
    await Promise.resolve();
    const during = Array.from({ length: 10 }, () => collector.request());
    expect(runs).toBe(1);
    release();
    await Promise.all([first, ...during]);

    expect(runs).toBe(2);
    expect(new Set(during).size).toBe(1);
    await collector.request();
    expect(runs).toBe(3);
  });

  it('runs again after a run that failed', async () => {
    let runs = 0;
    const collector = new ObjectCollector(async () => {
      runs += 1;
      if (runs === 1) throw new Error('bucket unreachable');
    });

    await expect(collector.request()).resolves.toBeUndefined();
    await collector.request();

    expect(runs).toBe(2);
    await expect(collector.idle()).resolves.toBeUndefined();
  });
});
