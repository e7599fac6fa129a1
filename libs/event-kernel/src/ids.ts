/**
 * 64-bit time-ordered ids (snowflake layout): 41 bits of milliseconds since
 * 2024-01-01, 10 bits of node, 12 bits of sequence. They sort by creation time
 * per node, fit a Postgres BIGINT, and travel as decimal strings in JSON
 * because JavaScript numbers cannot hold 64 bits.
 */
export const ID_EPOCH_MS = Date.UTC(2024, 0, 1);
const NODE_BITS = 10n;
const SEQUENCE_BITS = 12n;
const MAX_SEQUENCE = (1n << SEQUENCE_BITS) - 1n;
const MAX_NODE = (1n << NODE_BITS) - 1n;

export interface IdGenerator {
  next(): string;
}

export class SnowflakeIds implements IdGenerator {
  private lastMs = -1n;
  private sequence = 0n;
  private readonly node: bigint;

  constructor(
    node: number,
    private readonly clock: () => number,
  ) {
    if (!Number.isInteger(node) || node < 0 || BigInt(node) > MAX_NODE) {
      throw new RangeError(`id node must be an integer in 0..${MAX_NODE}, got ${node}`);
    }
    this.node = BigInt(node);
  }

  next(): string {
    let ms = BigInt(this.clock() - ID_EPOCH_MS);
    if (ms < this.lastMs) ms = this.lastMs; // the clock stepped back: stay monotonic
    if (ms === this.lastMs) {
      this.sequence = (this.sequence + 1n) & MAX_SEQUENCE;
      if (this.sequence === 0n) ms = this.lastMs + 1n; // sequence exhausted: borrow the next millisecond
    } else {
      this.sequence = 0n;
    }
    this.lastMs = ms;
    return ((ms << (NODE_BITS + SEQUENCE_BITS)) | (this.node << SEQUENCE_BITS) | this.sequence).toString();
  }
}

/** The creation time encoded in an id. */
export function idTimestamp(id: string): Date {
  return new Date(Number(BigInt(id) >> (NODE_BITS + SEQUENCE_BITS)) + ID_EPOCH_MS);
}

/** Compares two decimal id strings numerically. */
export function compareIds(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
