import { pySlice } from './py-slice';

describe('pySlice', () => {
  const items = [1, 2, 3, 4, 5];

  it('returns the half-open range clamped to the list', () => {
    expect(pySlice(items, 1, 3)).toEqual([2, 3]);
    expect(pySlice(items, 3, 99)).toEqual([4, 5]);
    expect(pySlice(items, 7, 9)).toEqual([]);
  });

  it('counts negative bounds from the end, as Python does', () => {
    expect(pySlice(items, -2, 5)).toEqual([4, 5]);
    expect(pySlice(items, -10, 0)).toEqual([]);
    expect(pySlice(items, -10, 2)).toEqual([1, 2]);
    expect(pySlice(items, 0, -1)).toEqual([1, 2, 3, 4]);
  });
});
