/** Rounds to `digits` decimals (Python's `round(x, digits)` up to ties). */
export function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
