import { createHash } from 'node:crypto';

/**
 * Deterministic payload of exactly `kb * 1024` characters: the lowercase hex
 * SHA-256 of `seed`, repeated and cut (TEST_SERVER.md §8). Empty when the size
 * is zero or negative.
 */
export function detPayload(kb: number, seed: string): string {
  const size = Math.max(0, Math.trunc(kb)) * 1024;
  if (size === 0) return '';
  const block = createHash('sha256').update(seed, 'utf8').digest('hex');
  return block.repeat(Math.ceil(size / block.length)).slice(0, size);
}
