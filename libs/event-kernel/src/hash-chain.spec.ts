import { createHash } from 'node:crypto';
import { buildEvent, sealEvent, type LedgerEvent } from './envelope';
import { EventType } from './event-types';
import { ChainVerifier, chainLink, type ChainedEvent } from './hash-chain';
import { ID_EPOCH_MS, SnowflakeIds } from './ids';

const ids = new SnowflakeIds(1, () => ID_EPOCH_MS + 42);
const context = { ids, now: () => new Date(Date.UTC(2026, 0, 1)), producer: 'noetl://test', tenantId: 't', organizationId: 'o' };

/** A stream of `count` events chained as the database chains them (migration EventHashChain). */
function chainedStream(count: number, executionId = '7'): ChainedEvent[] {
  let previous: Buffer | undefined;
  return Array.from({ length: count }, (_, index) => {
    const event = sealEvent(
      buildEvent({ type: EventType.CtxUpdated, executionId, payload: { set: { n: index } } }, context),
      index + 1,
      new Date(Date.UTC(2026, 0, 1)),
    ) as LedgerEvent;
    previous = chainLink(previous, event.stream_id, event.checksum);
    return { event, chainHash: previous };
  });
}

const verdictOf = (events: ChainedEvent[], options: { purged?: boolean } = {}) => {
  const verifier = new ChainVerifier(options);
  verifier.add(events);
  return verifier.verdict();
};

describe('the ledger hash chain', () => {
  it('links each event to the one before it, from a seed of its stream id', () => {
    const [first, second] = chainedStream(2);
    const seed = createHash('sha256').update('execution/7').digest();
    expect(first!.chainHash).toEqual(createHash('sha256').update(seed).update(first!.event.checksum).digest());
    expect(second!.chainHash).toEqual(createHash('sha256').update(first!.chainHash!).update(second!.event.checksum).digest());
  });

  it('finds an intact stream intact, fed a page at a time', () => {
    const events = chainedStream(5);
    const verifier = new ChainVerifier();
    verifier.add(events.slice(0, 2));
    verifier.add(events.slice(2));
    expect(verifier.verdict()).toEqual({ ok: true, events: 5 });
  });

  it('names an edited event: its content no longer matches its checksum', () => {
    const events = chainedStream(4);
    const edited = { ...events[2]!, event: { ...events[2]!.event, payload: { set: { n: 'forged' } } } as LedgerEvent };
    expect(verdictOf([events[0]!, events[1]!, edited, events[3]!])).toEqual({
      ok: false,
      events: 4,
      firstBadPosition: events[2]!.event.event_id,
      reason: expect.stringContaining('its content does not match its checksum'),
    });
  });

  it('names an edit whose checksum was recomputed: its chain hash no longer follows', () => {
    const events = chainedStream(3);
    const forged = sealEvent({ ...events[1]!.event, payload: { set: { n: 'forged' } } }, 2, new Date(Date.UTC(2026, 0, 1))) as LedgerEvent;
    expect(verdictOf([events[0]!, { ...events[1]!, event: forged }, events[2]!])).toMatchObject({
      ok: false,
      firstBadPosition: forged.event_id,
      reason: expect.stringContaining('its chain hash does not follow from the event before it'),
    });
  });

  it('names the event after a removed one, also when the later versions were renumbered', () => {
    const events = chainedStream(4);
    expect(verdictOf([events[0]!, events[2]!, events[3]!])).toMatchObject({
      ok: false,
      firstBadPosition: events[2]!.event.event_id,
      reason: expect.stringContaining('version 2 of its stream is missing'),
    });
    // Removed, and the later versions renumbered: the versions read on, the chain does not.
    const renumbered = [
      events[0]!,
      ...[events[2]!, events[3]!].map((chained, index) => ({
        ...chained,
        event: { ...chained.event, stream_version: index + 2 } as LedgerEvent,
      })),
    ];
    expect(verdictOf(renumbered)).toMatchObject({ ok: false, firstBadPosition: events[2]!.event.event_id });
    // Tail removed: nothing follows to break, which is why the projections keep their own copy (see verify).
    expect(verdictOf(events.slice(0, 3))).toEqual({ ok: true, events: 3 });
  });

  it('accepts the gaps retention leaves in a purged execution, and events written before the chain existed', () => {
    const events = chainedStream(4);
    expect(verdictOf([events[0]!, events[3]!], { purged: true })).toEqual({ ok: true, events: 2 });
    const legacy = chainedStream(3).map((chained, index) => (index < 2 ? { ...chained, chainHash: null } : chained));
    // The first chained event after legacy ones is seeded afresh, as the database seeds it.
    legacy[2] = { ...legacy[2]!, chainHash: chainLink(undefined, legacy[2]!.event.stream_id, legacy[2]!.event.checksum) };
    expect(verdictOf(legacy)).toEqual({ ok: true, events: 3 });
  });
});
