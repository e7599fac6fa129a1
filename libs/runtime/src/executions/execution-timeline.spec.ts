import {
  buildEvent,
  EventType,
  ID_EPOCH_MS,
  sealEvent,
  SnowflakeIds,
  type EventDraft,
  type EventTypeName,
  type LedgerEvent,
} from '@noetl/event-kernel';
import { timelineOf } from './execution-timeline';

const context = {
  ids: new SnowflakeIds(3, () => ID_EPOCH_MS + 1),
  now: () => new Date(Date.UTC(2026, 0, 1)),
  producer: 'test',
  tenantId: 't',
  organizationId: 'o',
};

/** Events of one execution, at positions 1, 2, ... (all at the context's clock). */
function ledger(drafts: Omit<EventDraft<EventTypeName>, 'executionId'>[]): LedgerEvent[] {
  return drafts.map(
    (draft, i) =>
      sealEvent(buildEvent({ ...draft, executionId: '100' } as EventDraft<EventTypeName>, context), i + 1, new Date(0)) as LedgerEvent,
  );
}

const issued = (commandId: string, attempt: number) => ({
  type: EventType.CommandIssued,
  commandId,
  payload: { command_id: commandId, step: 'fetch', run_id: 'r1', kind: 'http', attempt, max_attempts: 3, spec: {} },
});

describe('the timeline of an execution', () => {
  it('draws each command attempt with its worker, the retry delay between them, and a worker that gave a command back as unclaimed', () => {
    const bars = timelineOf(
      ledger([
        issued('c1', 1),
        { type: EventType.CommandClaimed, commandId: 'c1', payload: { worker_id: 'w1', lease_until: '2026-01-01T00:01:00Z', attempt: 1 } },
        { type: EventType.CommandFailed, commandId: 'c1', payload: { error: { kind: 'http', message: '503' } } },
        {
          type: EventType.RetryScheduled,
          payload: {
            step: 'fetch',
            run_id: 'r1',
            failed_command_id: 'c1',
            attempt: 1,
            due_at: '2026-01-01T00:00:09Z',
            delay_ms: 5000,
            timer_id: 't1',
            error: { kind: 'http', message: '503' },
          },
        },
        { type: EventType.TimerFired, payload: { timer_id: 't1', purpose: 'retry' } },
        issued('c2', 2),
        { type: EventType.CommandClaimed, commandId: 'c2', payload: { worker_id: 'w2', lease_until: '2026-01-01T00:01:00Z', attempt: 2 } },
        { type: EventType.CommandReleased, commandId: 'c2', payload: { worker_id: 'w2', attempt: 2, reason: 'shutdown' } },
      ] as Omit<EventDraft<EventTypeName>, 'executionId'>[]),
    );
    expect(bars).toEqual([
      expect.objectContaining({
        kind: 'command',
        id: 'c1',
        attempt: 1,
        max_attempts: 3,
        worker_id: 'w1',
        status: 'FAILED',
        begin: { position: 1, time: '2026-01-01T00:00:00.000Z' },
        claimed: expect.objectContaining({ position: 2 }),
        end: expect.objectContaining({ position: 3 }),
      }),
      expect.objectContaining({
        kind: 'retry',
        id: 't1',
        step: 'fetch',
        attempt: 1,
        due_at: '2026-01-01T00:00:09Z',
        status: 'FIRED',
        begin: expect.objectContaining({ position: 4 }),
        end: expect.objectContaining({ position: 5 }),
      }),
      { kind: 'command', id: 'c2', step: 'fetch', attempt: 2, max_attempts: 3, begin: { position: 6, time: '2026-01-01T00:00:00.000Z' } },
    ]);
  });

  it('draws a bar per frame attempt under its loop step, with its worker and index, and a wait for a signal from its step entry to its exit', () => {
    const bars = timelineOf(
      ledger([
        {
          type: EventType.StageOpened,
          payload: { stage_id: 's1', loop_id: 'l1', step: 'items', kind: 'loop', frame_count: 1, frame_policy: {} },
        },
        {
          type: EventType.FrameDispatched,
          payload: { frame_id: 'f1', stage_id: 's1', worker_id: 'w1', lease_until: '2026-01-01T00:01:00Z', attempt: 1 },
        },
        { type: EventType.FrameAbandoned, payload: { frame_id: 'f1', worker_id: 'w1', attempt: 1, reason: 'lease expired' } },
        {
          type: EventType.FrameDispatched,
          payload: { frame_id: 'f1', stage_id: 's1', worker_id: 'w2', lease_until: '2026-01-01T00:01:00Z', attempt: 2 },
        },
        {
          type: EventType.FrameCommitted,
          payload: { frame_id: 'f1', stage_id: 's1', frame_index: 0, row_count: 1, first_index: 0, failed_rows: [] },
        },
        { type: EventType.StepEnter, step: 'approve', payload: { step: 'approve', run_id: 'r9', activation: 1 } },
        {
          type: EventType.StepExit,
          step: 'approve',
          payload: { step: 'approve', run_id: 'r9', status: 'COMPLETED', signal: { name: 'ok', event_id: '1' } },
        },
      ] as Omit<EventDraft<EventTypeName>, 'executionId'>[]),
    );
    expect(bars.map((b) => [b.kind, b.id, b.step, b.worker_id, b.index, b.status, b.begin.position, b.end?.position])).toEqual([
      ['frame', 'f1#1', 'items', 'w1', undefined, 'ABANDONED', 2, 3],
      ['frame', 'f1#2', 'items', 'w2', 0, 'COMMITTED', 4, 5],
      ['wait', 'r9', 'approve', undefined, undefined, 'SIGNALLED', 6, 7],
    ]);
  });
});
