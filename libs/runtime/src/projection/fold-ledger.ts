import { applyEvent, type ExecutionState, type LedgerEvent } from '@noetl/event-kernel';
import type { Queryable } from '@noetl/storage';
import type { Ledger } from '../ledger';
import { RuntimeError } from '../runtime-error';

/** A state and the stream version it was folded to. */
export interface FoldPoint {
  state: ExecutionState | undefined;
  version: number;
}

export interface Folded extends FoldPoint {
  /** Events folded by this call, and the last of them. */
  folded: number;
  last?: LedgerEvent;
}

const PAGE = 1000;

export interface FoldOptions {
  /** Stops the fold before the first event it refuses (a replay's cutoff). */
  within?: (event: LedgerEvent) => boolean;
  /** The last stream version wanted, when known: no page reads past it (a replay close after its snapshot reads a few events, not a thousand). */
  until?: number;
  /** Sees the state after each event (the replay gate records what the projector held after every event). */
  observe?: (event: LedgerEvent, state: ExecutionState) => void;
  /** Refuses a gap in the stream's versions (`ledger_corrupt`) instead of folding past it: replay, which must not show a state no ledger made. */
  gapless?: boolean;
  /** Stops before the first event changed behind the runtime (its checksum no longer matches) and hands it here (the projector). */
  refuseChanged?: (event: LedgerEvent) => void;
}

/**
 * Folds an execution's ledger after `from` (a projection, a snapshot or
 * nothing) with the one reducer (the ledger's reads upcast each event):
 * the projector, the API's reads and replay all fold this way. Mutates
 * `from.state`.
 */
export async function foldLedger(
  q: Queryable,
  ledger: Ledger,
  executionId: string,
  from: FoldPoint,
  options: FoldOptions = {},
): Promise<Folded> {
  let { state, version } = from;
  let folded = 0;
  let last: LedgerEvent | undefined;
  const done = (): Folded => ({ state, version, folded, ...(last ? { last } : {}) });
  for (;;) {
    const wanted = Math.min(PAGE, (options.until ?? Infinity) - version);
    if (wanted <= 0) return done();
    const { events, changed } = await ledger.readIntactAfter(q, executionId, version, wanted, {
      verify: options.refuseChanged !== undefined,
    });
    for (const event of events) {
      if (options.within && !options.within(event)) return done();
      if (options.gapless && event.stream_version !== version + 1) {
        throw new RuntimeError(
          'ledger_corrupt',
          `execution ${executionId}'s ledger lacks version ${version + 1}: ${event.event_type} ${event.event_id} is version ${event.stream_version}`,
          {
            first_bad_position: event.event_id,
          },
        );
      }
      state = applyEvent(state, event);
      options.observe?.(event, state);
      version = event.stream_version;
      last = event;
      folded += 1;
    }
    if (changed) {
      options.refuseChanged!(changed);
      return done();
    }
    if (events.length < wanted) return done();
  }
}
