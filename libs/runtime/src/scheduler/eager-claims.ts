import { EventType, type EventDraft, type EventPayloads, type EventTypeName, type ExecutionState } from '@noetl/event-kernel';
import type { AppendResult, IssuedLease, PayloadStore, TenantScope } from '@noetl/storage';
import { workOf, type WorkNeeds } from '../bus/offers';
import { claimedCommand, type ClaimScopeDeps } from '../control-plane/claimed-command';
import type { ClaimedCommand, ClaimedFrame } from '../control-plane/control-plane';
import { newLeaseToken } from '../control-plane/lease-token';

/** A slot of this process's worker, held while a scheduler's transaction claims a command for it. */
export interface SlotReservation {
  readonly workerId: string;
  /** Runs the command in the slot; called once its claim committed. */
  run(command: ClaimedCommand): void;
  /** Runs a frame in the slot (a stage's next frame, claimed as the one before committed, assembled by `frame`); called once its claim committed. */
  runFrame(frame: () => Promise<ClaimedFrame>): void;
  /** Frees the slot unused: the claim rolled back, or the command ended in the same pass. */
  cancel(): void;
}

/** This process's worker as the scheduler sees it: where a command it issues may start at once. */
export interface LocalSlots {
  /**
   * A slot for work of `scope` that this worker takes (its pool, its kinds): a free one, or the slot of
   * the run whose report on `after` (a command or frame) led to the work;
   * undefined when neither (the command is offered instead).
   */
  reserve(scope: TenantScope, work: WorkNeeds, after?: string): SlotReservation | undefined;
}

interface EagerClaim {
  issued: EventPayloads[typeof EventType.CommandIssued] & { execution_id: string };
  reservation: SlotReservation;
  token: string;
  lease: IssuedLease;
}

/** What a pass's eager claims leave for after its transaction. */
export interface HandOver {
  /** The transaction committed: each claimed command starts in its slot. */
  committed(): void;
  /** It did not: every slot is given back. */
  rolledBack(): void;
}

/**
 * Eager dispatch (issue 12), for one scheduler pass: a command the pass
 * issues that a free slot of this process's worker can run is claimed in
 * the same transaction (`command.claimed` right behind its
 * `command.issued`, and its row written RUNNING with the lease), and handed
 * to the worker once the transaction commits: no offer, no notification
 * round trip, no claim transaction of the worker's own. A command no local
 * slot takes is offered as before. The lease, the token and the events are
 * those of a claim (DESIGN.md invariant 4); the reaper treats it alike.
 */
export class EagerClaims {
  private readonly claims = new Map<string, EagerClaim>();

  constructor(
    private readonly slots: LocalSlots | undefined,
    private readonly scope: TenantScope,
    private readonly leaseMs: number,
    private readonly now: () => Date,
    /** The command or frame whose report this pass plans, if any: its run's slot may take the next command. */
    private readonly after?: string,
  ) {}

  /** `drafts`, each `command.issued` that a local slot takes followed by its `command.claimed`. */
  claim(drafts: readonly EventDraft<EventTypeName>[]): EventDraft<EventTypeName>[] {
    if (!this.slots) return [...drafts];
    const out: EventDraft<EventTypeName>[] = [];
    for (const draft of drafts) {
      out.push(draft);
      if (draft.type !== EventType.CommandIssued) continue;
      const issued = (draft as EventDraft<typeof EventType.CommandIssued>).payload;
      const work = workOf(issued.spec);
      // A command to run alone waits for its worker to empty: it goes through the offer, which knows.
      if (work.alone) continue;
      const reservation = this.slots.reserve(this.scope, work, this.after);
      if (!reservation) continue;
      const token = newLeaseToken();
      const leaseUntil = new Date(this.now().getTime() + this.leaseMs);
      this.claims.set(issued.command_id, {
        issued: { ...issued, execution_id: draft.executionId },
        reservation,
        token: token.token,
        lease: { workerId: reservation.workerId, leaseUntil, tokenHash: token.hash },
      });
      out.push({
        type: EventType.CommandClaimed,
        executionId: draft.executionId,
        step: issued.step,
        commandId: issued.command_id,
        ...(issued.loop_id !== undefined ? { loopId: issued.loop_id } : {}),
        payload: { worker_id: reservation.workerId, lease_until: leaseUntil.toISOString(), attempt: issued.attempt, started: true },
      } as EventDraft<EventTypeName>);
    }
    return out;
  }

  /**
   * Refuses a batch in which a `command.issued` this pass claimed came back
   * a duplicate: its claim went in behind someone else's command. Decisions
   * carry fresh command ids, so this does not happen; if it ever did, the
   * pass's transaction rolls back rather than let two claims stand.
   */
  assertIssued(results: readonly AppendResult[]): void {
    for (const { event, duplicate } of results) {
      if (duplicate && event.event_type === EventType.CommandIssued && this.claims.has(event.payload.command_id)) {
        throw new Error(
          `command ${event.payload.command_id} was claimed as it was issued, but its command.issued was already in the ledger`,
        );
      }
    }
  }

  /** The lease of a command claimed in this pass: its row is written RUNNING with it. */
  leaseOf(commandId: string): IssuedLease | undefined {
    return this.claims.get(commandId)?.lease;
  }

  /**
   * The claimed commands as their worker receives them, their scope built
   * from the pass's final `state` (inside the transaction, reading payloads
   * through `via`). A command the same pass already ended (its execution
   * failed or was cancelled) gives its slot back instead.
   */
  async handOver(state: ExecutionState | undefined, deps: ClaimScopeDeps, via: PayloadStore): Promise<HandOver> {
    const ready: { reservation: SlotReservation; command: ClaimedCommand }[] = [];
    const unused: SlotReservation[] = [];
    for (const claim of this.claims.values()) {
      const { issued, reservation } = claim;
      if (!state || state.status !== 'RUNNING' || state.commands[issued.command_id]?.status !== 'RUNNING') {
        unused.push(reservation);
        continue;
      }
      const row = { ...issued, loop_id: issued.loop_id ?? null, iteration: issued.iteration ?? null };
      ready.push({
        reservation,
        command: await claimedCommand(row, { token: claim.token, leaseUntil: claim.lease.leaseUntil }, state, deps, via),
      });
    }
    return {
      committed: () => {
        for (const reservation of unused) reservation.cancel();
        for (const { reservation, command } of ready) reservation.run(command);
      },
      rolledBack: () => this.rolledBack(),
    };
  }

  /** Gives every slot back (the transaction failed before or after `handOver`). */
  rolledBack(): void {
    for (const { reservation } of this.claims.values()) reservation.cancel();
  }
}
