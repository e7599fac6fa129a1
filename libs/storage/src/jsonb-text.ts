/**
 * PostgreSQL's jsonb cannot hold U+0000 in a string or a key (22P05,
 * "unsupported Unicode escape sequence"): a value that has one cannot be
 * written to the ledger at all. These find and replace it before a write.
 */
const NUL = '\u0000';

/** The path (`$.a[2].b`) of the first string or key of `value` that holds U+0000; undefined when none does. */
export function nulPath(value: unknown, path = '$'): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = nulPath(item, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const at = `${path}.${escaped(key) as string}`;
      if (key.includes(NUL)) return at;
      const found = nulPath(item, at);
      if (found) return found;
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
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [escaped(key), escaped(item)]));
  return value;
}
