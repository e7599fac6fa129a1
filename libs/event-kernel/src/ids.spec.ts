import { compareIds, ID_EPOCH_MS, idTimestamp, SnowflakeIds } from './ids';

describe('SnowflakeIds', () => {
  it('issues strictly increasing ids within one millisecond', () => {
    const ids = new SnowflakeIds(1, () => ID_EPOCH_MS + 1000);
    const issued = Array.from({ length: 5000 }, () => ids.next());
    for (let i = 1; i < issued.length; i++) expect(compareIds(issued[i - 1]!, issued[i]!)).toBe(-1);
    expect(new Set(issued).size).toBe(5000);
  });

  it('stays monotonic when the clock steps back', () => {
    let now = ID_EPOCH_MS + 10_000;
    const ids = new SnowflakeIds(2, () => now);
    const first = ids.next();
    now -= 5_000;
    expect(compareIds(first, ids.next())).toBe(-1);
  });

  it('encodes the creation time and fits a signed 64-bit integer', () => {
    const at = Date.UTC(2026, 10, 22, 12, 0, 0);
    const id = new SnowflakeIds(1023, () => at).next();
    expect(idTimestamp(id).getTime()).toBe(at);
    expect(BigInt(id) < 2n ** 63n).toBe(true);
    expect(id).toMatch(/^\d+$/);
  });

  it('refuses a node outside 0..1023', () => {
    expect(() => new SnowflakeIds(1024, () => 0)).toThrow(RangeError);
  });
});
