import { LruCache } from './lru-cache';

describe('LruCache', () => {
  it('counts hits and misses and refreshes entries on read', () => {
    const cache = new LruCache<string, number>(2);
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect({ size: cache.size, hits: cache.hits, misses: cache.misses }).toEqual({ size: 2, hits: 3, misses: 2 });
  });

  it('replaces an existing key without growing', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('a', 2);
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBe(2);
  });

  it('keeps nothing with capacity 0 and rejects a bad capacity', () => {
    const cache = new LruCache<string, number>(0);
    cache.set('a', 1);
    expect(cache.size).toBe(0);
    expect(() => new LruCache(-1)).toThrow(RangeError);
    expect(() => new LruCache(1.5)).toThrow(RangeError);
  });
});
