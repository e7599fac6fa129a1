import { createHash } from 'node:crypto';

/**
 * The MD5 digest of the UTF-8 bytes of `text`, read as one unsigned 128-bit
 * big-endian integer (Python's `int(md5(s).hexdigest(), 16)`).
 */
export function md5int(text: string): bigint {
  return BigInt('0x' + createHash('md5').update(text, 'utf8').digest('hex'));
}

/** `md5int(text) % modulus` as a plain number; `modulus` must be a positive integer. */
export function md5mod(text: string, modulus: number): number {
  return Number(md5int(text) % BigInt(modulus));
}
