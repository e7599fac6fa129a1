import { EventType, type EventDraft, type EventTypeName, type LedgerEvent } from '@noetl/event-kernel';
import type { AppendResult } from '@noetl/storage';
import type { ClaimedCommand } from '../control-plane/control-plane';
import { EagerClaims, type LocalSlots, type SlotReservation } from './eager-claims';

const SCOPE = { tenantId: 't', organizationId: 'o' };
const NOW = new Date('2026-01-01T00:00:00.000Z');

function issued(commandId: string, spec: Record<string, unknown> = { tool: { kind: 'noop' } }): EventDraft<EventTypeName> {
  return {
    type: EventType.CommandIssued,
    executionId: '7',
    step: 's',
    commandId,
    payload: { command_id: commandId, step: 's', run_id: 'r', kind: 'noop', attempt: 2, max_attempts: 3, spec },
  } as EventDraft<EventTypeName>;
}

/** Slots of a worker that has `free` of them, recording what each reservation became. */
function slots(free: number): LocalSlots & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    reserve(_scope, { kinds }): SlotReservation | undefined {
      if (free === 0) return undefined;
      free--;
      return {
        workerId: 'w1',
        run: (command: ClaimedCommand) => log.push(`run ${command.command_id} ${kinds.join(',')}`),
        runFrame: () => log.push('frame'),
        cancel: () => log.push('cancel'),
      };
    },
  };
}

describe('EagerClaims', () => {
  it('claims each issued command a free local slot takes, right behind its command.issued', () => {
    const eager = new EagerClaims(slots(1), SCOPE, 30_000, () => NOW);
    const drafts = eager.claim([issued('c1'), issued('c2'), { type: EventType.StepEnter } as EventDraft<EventTypeName>]);

    expect(drafts.map((draft) => `${draft.type}${draft.commandId ? ` ${draft.commandId}` : ''}`)).toEqual([
      'command.issued c1',
      'command.claimed c1',
      'command.issued c2',
      'step.enter',
    ]);
    expect(drafts[1]!.payload).toEqual({ worker_id: 'w1', lease_until: '2026-01-01T00:00:30.000Z', attempt: 2, started: true });
    expect(eager.leaseOf('c1')).toMatchObject({ workerId: 'w1', leaseUntil: new Date('2026-01-01T00:00:30.000Z') });
    expect(eager.leaseOf('c1')?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(eager.leaseOf('c2')).toBeUndefined();
  });

  it('leaves a command that must run alone to its offer', () => {
    const local = slots(4);
    const eager = new EagerClaims(local, SCOPE, 30_000, () => NOW);

    expect(eager.claim([issued('c1', { tool: { kind: 'noop' }, run_alone: true })]).map((draft) => draft.type)).toEqual([
      EventType.CommandIssued,
    ]);
    expect(local.log).toEqual([]);
  });

  it('claims nothing without a local worker', () => {
    const eager = new EagerClaims(undefined, SCOPE, 30_000, () => NOW);
    expect(eager.claim([issued('c1')])).toHaveLength(1);
  });

  it('gives every slot back when the transaction rolls back', () => {
    const local = slots(2);
    const eager = new EagerClaims(local, SCOPE, 30_000, () => NOW);
    eager.claim([issued('c1'), issued('c2')]);

    eager.rolledBack();

    expect(local.log).toEqual(['cancel', 'cancel']);
  });

  it('refuses a claim behind a command.issued that came back a duplicate', () => {
    const eager = new EagerClaims(slots(1), SCOPE, 30_000, () => NOW);
    eager.claim([issued('c1')]);
    const duplicate = {
      event: { event_type: EventType.CommandIssued, payload: { command_id: 'c1' } } as LedgerEvent,
      duplicate: true,
    } as AppendResult;

    expect(() => eager.assertIssued([duplicate])).toThrow(/c1 was claimed as it was issued/);
    expect(() => eager.assertIssued([{ ...duplicate, duplicate: false }])).not.toThrow();
  });
});
