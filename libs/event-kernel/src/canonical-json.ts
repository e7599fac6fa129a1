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

/** JSON-encoded object keys: a ledger's keys repeat, and encoding one is most of writing it. */
const encodedKeys = new Map<string, string>();
const MAX_ENCODED_KEYS = 10_000;

function encodedKey(key: string): string {
  let encoded = encodedKeys.get(key);
  if (encoded === undefined) {
    encoded = JSON.stringify(key);
    if (encodedKeys.size < MAX_ENCODED_KEYS) encodedKeys.set(key, encoded);
  }
  return encoded;
}

// Written by string concatenation (no intermediate arrays): every event is sealed with it, every projection checksummed.
function canonicalise(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON cannot encode ${value}`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return 'null';
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) {
    // A list of scalars (a loop's collection: a million numbers) is written by JSON.stringify in one flat
    // string, byte for byte what the loop below writes, without a rope of a million pieces to collect.
    if (value.every(isPlainScalar)) return JSON.stringify(value);
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalise(value[i]) ?? 'null';
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of Object.keys(record).sort()) {
    const encoded = canonicalise(record[key]);
    if (encoded === undefined) continue;
    out += first ? `${encodedKey(key)}:${encoded}` : `,${encodedKey(key)}:${encoded}`;
    first = false;
  }
  return `${out}}`;
}

/** A value canonical JSON writes as JSON.stringify does. */
function isPlainScalar(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 of the canonical JSON of a value. */
export function canonicalChecksum(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
