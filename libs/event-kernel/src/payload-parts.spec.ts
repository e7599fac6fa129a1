import { isListParts, isLoopResultParts, type ListParts } from './payload-parts';

describe('list manifests read back from the payload store', () => {
  const ref = { sha256: 'a'.repeat(64), media_type: 'application/json', bytes: 10 };
  const manifest: ListParts = { items: 7, parts: [{ ref, items: 3 }, { values: [1, 2] }, { nulls: 2 }] };

  it('knows a manifest of each kind of part, and a loop result by its stats', () => {
    expect(isListParts(manifest)).toBe(true);
    expect(isLoopResultParts(manifest)).toBe(false);
    expect(isLoopResultParts({ ...manifest, stats: { total: 7 } })).toBe(true);
  });

  it.each([
    ['a list', [1, 2]],
    ['no item count', { parts: [] }],
    ['a part of no known kind', { items: 1, parts: [{ rows: 1 }] }],
    ['a stored part without its item count', { items: 1, parts: [{ ref }] }],
  ])('refuses %s', (_label, value) => {
    expect(isListParts(value)).toBe(false);
  });
});
