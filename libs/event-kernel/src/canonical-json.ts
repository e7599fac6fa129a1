import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted, `undefined` members dropped, Dates as UTC
 * ISO strings, bigints as decimal strings, no whitespace. Two envelopes with
 * the same content serialise to the same bytes whatever their key order, so
 * their checksums compare (seed 002 s6.6).
 */
export function canonicalJson(value: unknown): string {
  const out = canonicalise(value);
  return out === undefined ? 'null' : out;
}

function canonicalise(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null) return 'null';
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  switch (typeof value) {
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON cannot encode ${value}`);
      return JSON.stringify(value);
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonicalise(item) ?? 'null').join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const encoded = canonicalise(record[key]);
    if (encoded !== undefined) members.push(`${JSON.stringify(key)}:${encoded}`);
  }
  return `{${members.join(',')}}`;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 of the canonical JSON of a value. */
export function canonicalChecksum(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
