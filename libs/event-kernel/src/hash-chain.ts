import { createHash } from 'node:crypto';
import { envelopeChecksum, type LedgerEvent } from './envelope';

/**
 * The ledger's hash chain (issue 25 item 3), as the database writes it
 * (migration EventHashChain): an event's `chain_hash` is sha256(the previous
 * event of its stream's chain_hash || its checksum), seeded per stream with
 * sha256(stream_id).
 */
export function chainLink(previous: Buffer | undefined, streamId: string, checksum: string): Buffer {
  const seed = previous ?? createHash('sha256').update(streamId, 'utf8').digest();
  return createHash('sha256').update(seed).update(checksum, 'utf8').digest();
}

/** A stored event with the chain hash the database gave it (null: appended before the chain existed). */
export interface ChainedEvent {
  event: LedgerEvent;
  chainHash: Buffer | null;
}

/** What a verification found: the first bad event by position, and why. */
export type LedgerVerdict = { ok: true; events: number } | { ok: false; events: number; firstBadPosition: string; reason: string };

/**
 * Checks a ledger's events, fed in stream order (stream, then version), a
 * page at a time: each event's content against its checksum (an edit), and
 * each stream's versions and chain links (an event removed, inserted or
 * moved). `purged`: the execution went through retention, which deletes
 * events by design, so a gap in versions is expected and its link cannot be
 * checked. The first bad event is the one with the smallest position (event
 * id) among each stream's first break.
 */
export class ChainVerifier {
  private events = 0;
  private stream: string | undefined;
  private previous: { version: number; chain: Buffer | null } | undefined;
  private broken = false;
  private firstBreak: { position: string; reason: string } | undefined;

  constructor(private readonly options: { purged?: boolean } = {}) {}

  add(chained: readonly ChainedEvent[]): void {
    for (const { event, chainHash } of chained) {
      this.events += 1;
      if (event.stream_id !== this.stream) {
        this.stream = event.stream_id;
        this.previous = undefined;
        this.broken = false;
      }
      if (this.broken) continue;
      const reason = breakAt(event, chainHash, this.previous, this.options.purged === true);
      if (reason) {
        this.broken = true;
        if (!this.firstBreak || BigInt(event.event_id) < BigInt(this.firstBreak.position))
          this.firstBreak = { position: event.event_id, reason };
        continue;
      }
      this.previous = { version: event.stream_version, chain: chainHash };
    }
  }

  verdict(): LedgerVerdict {
    const { events, firstBreak } = this;
    return firstBreak ? { ok: false, events, firstBadPosition: firstBreak.position, reason: firstBreak.reason } : { ok: true, events };
  }
}

function breakAt(
  event: LedgerEvent,
  chainHash: Buffer | null,
  previous: { version: number; chain: Buffer | null } | undefined,
  purged: boolean,
): string | undefined {
  const at = `${event.event_type} ${event.event_id} (${event.stream_id} version ${event.stream_version})`;
  if (envelopeChecksum(event) !== event.checksum) return `${at}: its content does not match its checksum (changed after it was written)`;
  const expectedVersion = (previous?.version ?? 0) + 1;
  const gap = event.stream_version !== expectedVersion;
  if (gap && !purged) {
    return event.stream_version > expectedVersion
      ? `${at}: version ${expectedVersion} of its stream is missing (an event was removed)`
      : `${at}: its stream has version ${event.stream_version} twice or out of order`;
  }
  // Appended before the chain existed, or after events retention removed: its checksum is all there is to check.
  if (chainHash === null || gap) return undefined;
  // The database seeds the link where the event before has no chain hash, as for a stream's first event.
  const expected = chainLink(previous?.chain ?? undefined, event.stream_id, event.checksum);
  if (!expected.equals(chainHash))
    return `${at}: its chain hash does not follow from the event before it (an event was changed, removed or added)`;
  return undefined;
}
