/** Python's `items[start:stop]` (step 1): negative bounds count from the end, then clamp. */
export function pySlice<T>(items: readonly T[], start: number, stop: number): T[] {
  const clamp = (index: number): number => {
    const fromEnd = index < 0 ? index + items.length : index;
    return Math.min(Math.max(fromEnd, 0), items.length);
  };
  const from = clamp(start);
  const to = clamp(stop);
  return to > from ? items.slice(from, to) : [];
}
