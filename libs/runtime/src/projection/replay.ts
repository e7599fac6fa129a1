import {
  checksumsOf,
  diffStates,
  payloadUses,
  REDUCER_VERSION,
  surfacesOf,
  SURFACES,
  type ExecutionState,
  type Json,
  type PayloadUse,
  type StateChange,
  type Surface,
} from '@noetl/event-kernel';
import type { Database, ProjectionRepository } from '@noetl/storage';
import type { Ledger } from '../ledger';
import { notFound, RuntimeError } from '../runtime-error';
import type { PayloadCache } from '../state/payload-cache';
import { foldLedger, type FoldPoint, type Folded } from './fold-ledger';
import { LedgerVerification, type LedgerVerificationView } from './ledger-verification';

const ID = /^\d{1,19}$/;

/** Where a replay stops: after an event, at a time, or at a stream position; the latest event when none is given. */
export interface ReplayCutoff {
  asOfEventId?: string;
  asOfTime?: string;
  asOfPosition?: number;
}

export interface ReplayQuery extends ReplayCutoff {
  executionId: string;
  /** The surfaces to return (`all`: every one); checksums are always given for every surface. */
  projection?: readonly (Surface | 'all')[];
  /** Also return the bodies of the payloads the state refers to. */
  payloads?: boolean;
  /** Seed from a matching snapshot (the default); false folds from the first event. The answer is the same. */
  snapshots?: boolean;
}

/** The state of an execution as of a point of its ledger, with the checksums that prove it (seed 002 s3.2). */
export interface ReplayState {
  execution_id: string;
  position: { event_id: string; stream_version: number; event_time: string };
  events_folded: number;
  /** The snapshot version the fold started from, or null when it started from the first event. */
  seeded_from_snapshot: number | null;
  reducer_version: string;
  upcaster_digest: string;
  checksums: Record<Surface | 'all', string>;
  state: Partial<Record<Surface, Json>>;
  payload_refs: PayloadUse[];
  payloads?: Record<string, Json>;
}

/** What changed in an execution's state between two points of its ledger (`noetl replay --diff`, the explorer's diff mode). */
export interface ReplayDiff {
  execution_id: string;
  from: ReplayState['position'];
  to: ReplayState['position'];
  /** The leaves and subtrees that differ, at their dotted paths (surface first), in path order. */
  changes: StateChange[];
}

/**
 * Replay and time travel: the state of any execution as of any event, folded
 * from the ledger with the same reducer and upcasters as the projector, so
 * the checksums of a replay at the last event equal the live projection's.
 * Scoped to the ledger's tenant and organization: another's execution is not found.
 */
export class Replay {
  constructor(
    private readonly db: Database,
    private readonly ledger: Ledger,
    private readonly projections: ProjectionRepository,
    private readonly payloadCache: PayloadCache,
  ) {
    this.verification = new LedgerVerification(db, ledger, projections);
  }

  private readonly verification: LedgerVerification;

  /** Whether the execution's ledger is what was written (LedgerVerification). */
  verify(executionId: string): Promise<LedgerVerificationView> {
    return this.verification.verify(executionId);
  }

  async stateAt(query: ReplayQuery): Promise<ReplayState> {
    const { executionId } = query;
    if (!ID.test(executionId)) throw notFound('execution', executionId);
    if (query.asOfEventId !== undefined && !ID.test(query.asOfEventId))
      throw new RuntimeError('invalid_request', 'as_of_event_id must be an event id');
    const cutoff = await this.cutoffVersion(executionId, query);
    const folding = { reducerVersion: REDUCER_VERSION, registryDigest: this.ledger.upcasters.digest() };
    const snapshot =
      query.snapshots === false
        ? undefined
        : await this.projections.snapshotAtOrBefore<ExecutionState>(this.db, this.ledger.scope, executionId, cutoff, folding);
    const from: FoldPoint = snapshot ? { state: snapshot.state, version: snapshot.version } : { state: undefined, version: 0 };
    const folded = await this.fold(executionId, from, cutoff);
    const state = folded.state;
    if (!state) throw notFound('execution', executionId);
    const surfaces = surfacesOf(state);
    const wanted = !query.projection || query.projection.includes('all') ? SURFACES : SURFACES.filter((s) => query.projection?.includes(s));
    const refs = payloadUses(state);
    return {
      execution_id: executionId,
      position: await this.position(executionId, folded.version),
      events_folded: folded.folded,
      seeded_from_snapshot: snapshot?.version ?? null,
      reducer_version: REDUCER_VERSION,
      upcaster_digest: folding.registryDigest,
      checksums: checksumsOf(state),
      state: Object.fromEntries(wanted.map((surface) => [surface, surfaces[surface]])),
      payload_refs: refs,
      ...(query.payloads ? { payloads: await this.bodies(refs) } : {}),
    };
  }

  /** Both points replayed (each seeded from a snapshot), and what differs between their states. */
  async diff(executionId: string, from: ReplayCutoff, to: ReplayCutoff): Promise<ReplayDiff> {
    const [before, after] = await Promise.all([this.stateAt({ executionId, ...from }), this.stateAt({ executionId, ...to })]);
    return {
      execution_id: executionId,
      from: before.position,
      to: after.position,
      changes: diffStates(before.state as Json, after.state as Json),
    };
  }

  /**
   * Folds to `cutoff`, refusing a gap in the stream. A fold that fails is
   * explained by a verification of the ledger: a broken one answers
   * `ledger_corrupt` naming the first bad position, never an internal error;
   * a purged one (gaps by design) folds what retention kept. Content
   * edits that still fold are `verify`'s to find: checking every event's
   * checksum here would double the cost of a replay.
   */
  private async fold(executionId: string, from: FoldPoint, cutoff: number): Promise<Folded> {
    const within = (event: { stream_version: number }) => event.stream_version <= cutoff;
    try {
      return await foldLedger(this.db, this.ledger, executionId, from, { within, until: cutoff, gapless: true });
    } catch (error) {
      const verified = await this.verification.verify(executionId);
      if (!verified.ok) {
        throw new RuntimeError('ledger_corrupt', `execution ${executionId}'s ledger was changed: ${verified.reason}`, {
          first_bad_position: verified.first_bad_position,
        });
      }
      if (!(error instanceof RuntimeError && error.code === 'ledger_corrupt')) throw error;
      // From the first event: the failed fold may have changed the snapshot's state it started from.
      return foldLedger(this.db, this.ledger, executionId, { state: undefined, version: 0 }, { within, until: cutoff });
    }
  }

  /** The stream version the cutoff names (the last one when none is given); not found when it is not this execution's. */
  private async cutoffVersion(executionId: string, cutoff: ReplayCutoff): Promise<number> {
    const given = [cutoff.asOfEventId, cutoff.asOfTime, cutoff.asOfPosition].filter((value) => value !== undefined).length;
    if (given > 1) throw new RuntimeError('invalid_request', 'give at most one of as_of_event_id, as_of_time and as_of_position');
    const found = await this.ledger.resolveCutoff(this.db, executionId, {
      ...(cutoff.asOfEventId !== undefined ? { eventId: cutoff.asOfEventId } : {}),
      ...(cutoff.asOfTime !== undefined ? { time: cutoff.asOfTime } : {}),
      ...(cutoff.asOfPosition !== undefined ? { position: cutoff.asOfPosition } : {}),
    });
    if (!found.streamExists) throw notFound('execution', executionId);
    if (!found.eventKnown) throw notFound('event', `${cutoff.asOfEventId} of execution ${executionId}`);
    if (found.version === null) throw new RuntimeError('invalid_request', `execution ${executionId} has no event at or before that point`);
    return found.version;
  }

  private async position(executionId: string, version: number): Promise<ReplayState['position']> {
    const event = await this.ledger.eventAt(this.db, executionId, version);
    if (!event) throw notFound('execution', executionId);
    return { event_id: event.eventId, stream_version: version, event_time: event.eventTime.toISOString() };
  }

  private async bodies(refs: readonly PayloadUse[]): Promise<Record<string, Json>> {
    const bodies: Record<string, Json> = {};
    for (const { ref } of refs) bodies[ref.sha256] ??= await this.payloadCache.get(ref);
    return bodies;
  }
}
