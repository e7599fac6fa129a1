const PY_INT_TEXT = /^[+-]?\d+(?:_\d+)*$/;

/**
 * Python's `int(text)` for ASCII input: surrounding whitespace, a sign and
 * single underscores between digits are allowed. Returns `undefined` where
 * Python raises `ValueError`, or where the value is not a safe JS integer.
 */
export function parsePyInt(text: string): number | undefined {
  const trimmed = text.trim();
  if (!PY_INT_TEXT.test(trimmed)) return undefined;
  const value = Number(trimmed.replace(/_/g, ''));
  return Number.isSafeInteger(value) ? value : undefined;
}
