/**
 * PostgreSQL's jsonb cannot hold U+0000 in a string or a key (22P05,
 * "unsupported Unicode escape sequence"): a value that has one cannot be
 * written to the ledger at all. These find and replace it before a write.
 */
const NUL = '\u0000';

/** The path (`$.a[2].b`) of the first string or key of `value` that holds U+0000; undefined when none does. */
export function nulPath(value: unknown, root = '$'): string | undefined {
  const segments = nulSegments(value);
  return segments && root + segments.reverse().join('');
}

/** The path to the first U+0000, innermost segment first, built only on a hit: results are walked on every report. */
function nulSegments(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? [] : undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = nulSegments(value[index]);
      if (found) return [...found, `[${index}]`];
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes(NUL)) return [`.${escaped(key) as string}`];
      const found = nulSegments(item);
      if (found) return [...found, `.${key}`];
    }
  }
  return undefined;
}

/** `value` with each U+0000 of its strings and keys written as the six characters `\u0000` (for text a person reads, such as an error message). */
export function escapeNul<T>(value: T): T {
  return nulPath(value) === undefined ? value : (escaped(value) as T);
}

function escaped(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll(NUL, '\\u0000');
  if (Array.isArray(value)) return value.map(escaped);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [escaped(key), escaped(item)]));
  return value;
}
