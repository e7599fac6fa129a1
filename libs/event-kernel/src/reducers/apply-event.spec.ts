import { buildEvent, type EventDraft, sealEvent } from '../envelope';
import type { LedgerEvent } from '../envelope';
import { EventType, type EventTypeName } from '../event-types';
import { ID_EPOCH_MS, SnowflakeIds } from '../ids';
import { applyEvent, foldEvents, FoldError } from './apply-event';
import { activeRuns } from './execution-state';
import { setPath } from './set-path';

const ids = new SnowflakeIds(3, () => ID_EPOCH_MS + 1);
const context = { ids, now: () => new Date(Date.UTC(2026, 0, 1)), producer: 'test', tenantId: 't', organizationId: 'o' };
let version = 0;
function ev<T extends EventTypeName>(draft: Omit<EventDraft<T>, 'executionId'>): LedgerEvent {
  return sealEvent(buildEvent({ ...draft, executionId: '100' } as EventDraft<T>, context), ++version, new Date(0)) as LedgerEvent;
}

const started = () =>
  ev({ type: EventType.ExecutionStarted, payload: { path: 'p', version: 1, catalog_id: '5', workload: { a: 1, nested: { x: 1 } } } });

describe('applyEvent', () => {
  it('folds a step run from entry to exit and records its result', () => {
    const state = foldEvents([
      started(),
      ev({ type: EventType.StepEnter, step: 'start', payload: { step: 'start', run_id: 'r1', activation: 1 } }),
      ev({
        type: EventType.CommandIssued,
        commandId: 'c1',
        payload: { command_id: 'c1', step: 'start', run_id: 'r1', kind: 'python', attempt: 1, max_attempts: 3, spec: {} },
      }),
      ev({
        type: EventType.CommandClaimed,
        commandId: 'c1',
        payload: { worker_id: 'w', lease_until: '2026-01-01T00:01:00.000Z', attempt: 1 },
      }),
      ev({ type: EventType.CommandStarted, commandId: 'c1', payload: { worker_id: 'w' } }),
      ev({ type: EventType.CommandCompleted, commandId: 'c1', payload: { result: { ok: true } } }),
      ev({
        type: EventType.StepExit,
        step: 'start',
        payload: { step: 'start', run_id: 'r1', status: 'COMPLETED', result: { ok: true }, next: ['a', 'b'] },
      }),
    ])!;
    expect(state.status).toBe('RUNNING');
    expect(state.commands.c1).toMatchObject({ status: 'COMPLETED', workerId: 'w', attempt: 1 });
    expect(state.runs.r1).toMatchObject({ status: 'COMPLETED', result: { ok: true }, commandIds: ['c1'], attempts: 1 });
    expect(state.steps.start).toMatchObject({ status: 'COMPLETED', runs: 1, attempts: 1 });
    expect(state.results.start).toEqual({ value: { ok: true } });
    expect(state.lastCompletedStep).toBe('start');
    expect(state.pending).toEqual({ a: ['r1'], b: ['r1'] });
    expect(activeRuns(state)).toEqual([]);
    expect(state.eventCount).toBe(7);
  });

  it('runs a command from a claim that says it started, as from the claim and start events older ledgers hold', () => {
    const issued = () =>
      ev({
        type: EventType.CommandIssued,
        commandId: 'c1',
        payload: { command_id: 'c1', step: 'start', run_id: 'r1', kind: 'python', attempt: 1, max_attempts: 3, spec: {} },
      });
    const claim = { worker_id: 'w', lease_until: '2026-01-01T00:01:00.000Z', attempt: 1 };
    const before = (events: ReturnType<typeof ev>[]) =>
      foldEvents([
        started(),
        ev({ type: EventType.StepEnter, step: 'start', payload: { step: 'start', run_id: 'r1', activation: 1 } }),
        issued(),
        ...events,
      ])!;

    const claimedOnly = before([ev({ type: EventType.CommandClaimed, commandId: 'c1', payload: claim })]);
    const older = before([
      ev({ type: EventType.CommandClaimed, commandId: 'c1', payload: claim }),
      ev({ type: EventType.CommandStarted, commandId: 'c1', payload: { worker_id: 'w' } }),
    ]);
    const newer = before([ev({ type: EventType.CommandClaimed, commandId: 'c1', payload: { ...claim, started: true } })]);

    expect(claimedOnly.commands.c1).toMatchObject({ status: 'CLAIMED', workerId: 'w' });
    expect(newer.commands.c1).toEqual(older.commands.c1);
    expect(newer.commands.c1).toMatchObject({ status: 'RUNNING', workerId: 'w', leaseUntil: claim.lease_until });
  });

  it('consumes the arrivals a step entry names and keeps the others pending', () => {
    const state = foldEvents([
      started(),
      ev({ type: EventType.StepEnter, payload: { step: 'a', run_id: 'ra', activation: 1 } }),
      ev({ type: EventType.StepEnter, payload: { step: 'b', run_id: 'rb', activation: 1 } }),
      ev({ type: EventType.StepExit, payload: { step: 'a', run_id: 'ra', status: 'COMPLETED', result: 1, next: ['join'] } }),
      ev({ type: EventType.StepExit, payload: { step: 'b', run_id: 'rb', status: 'COMPLETED', result: 2, next: ['join'] } }),
    ])!;
    expect(state.pending.join).toEqual(['ra', 'rb']);
    applyEvent(state, ev({ type: EventType.StepEnter, payload: { step: 'join', run_id: 'rj', activation: 1, arrivals: ['ra'] } }));
    expect(state.pending.join).toEqual(['rb']);
    applyEvent(state, ev({ type: EventType.StepEnter, payload: { step: 'join', run_id: 'rj2', activation: 2, arrivals: ['rb'] } }));
    expect(state.pending.join).toBeUndefined();
    expect(state.steps.join).toMatchObject({ runs: 2, lastRunId: 'rj2', status: 'RUNNING' });
  });

  it('applies ctx writes at dotted keys over the workload', () => {
    const state = foldEvents([started(), ev({ type: EventType.CtxUpdated, payload: { set: { b: [1, 2], 'nested.y': true } } })])!;
    expect(state.ctx).toEqual({ a: 1, b: [1, 2], nested: { x: 1, y: true } });
    expect(state.workload).toEqual({ a: 1, nested: { x: 1 } });
  });

  it('tracks a loop epoch through its frames to loop.done', () => {
    const state = foldEvents([
      started(),
      ev({ type: EventType.StepEnter, payload: { step: 'each', run_id: 'r', activation: 1 } }),
      ev({
        type: EventType.LoopStarted,
        payload: {
          loop_id: 'L',
          step: 'each',
          run_id: 'r',
          epoch: 1,
          size: 3,
          collection: [1, 2, 3],
          mode: 'parallel',
          max_in_flight: 2,
          stage_id: 'S',
        },
      }),
      ev({
        type: EventType.StageOpened,
        loopId: 'L',
        payload: { stage_id: 'S', loop_id: 'L', step: 'each', kind: 'loop', frame_count: 2, frame_policy: {} },
      }),
      ev({
        type: EventType.FrameDispatched,
        loopId: 'L',
        payload: { frame_id: 'f1', stage_id: 'S', worker_id: 'w', lease_until: 'x', attempt: 1 },
      }),
      ev({
        type: EventType.FrameCommitted,
        loopId: 'L',
        payload: {
          frame_id: 'f1',
          stage_id: 'S',
          frame_index: 1,
          row_count: 1,
          first_index: 2,
          failed_rows: [{ index: 2, status: 'error', error: { kind: 'code', message: 'boom' } }],
        },
      }),
      ev({
        type: EventType.FrameCommitted,
        loopId: 'L',
        payload: { frame_id: 'f0', stage_id: 'S', frame_index: 0, row_count: 2, first_index: 0, failed_rows: [], results: [1, 2] },
      }),
    ])!;
    const loop = state.loops.L!;
    expect(state.runs.r!.loopId).toBe('L');
    expect(loop).toMatchObject({ frameCount: 2, succeededRows: 2, failedRows: 1, status: 'RUNNING', inFlight: {} });
    expect(Object.keys(loop.frames)).toEqual(['0', '1']);
    applyEvent(
      state,
      ev({
        type: EventType.LoopDone,
        payload: { loop_id: 'L', step: 'each', run_id: 'r', status: 'partial', total: 3, succeeded: 2, failed: 1 },
      }),
    );
    expect(loop).toMatchObject({ status: 'DONE', doneStatus: 'partial' });
  });

  it('counts the chunks a streaming run streamed, and only new chunk indexes move it (a re-run streams from 0 again)', () => {
    const rowsRef = { sha256: 'a'.repeat(64), media_type: 'application/json', bytes: 2 };
    const partial = (commandId: string, index: number) =>
      ev({
        type: EventType.CallPartial,
        commandId,
        payload: { task: 's', chunk_index: index, has_more: true, row_count: 1, columns: ['n'], rows_ref: rowsRef },
      });
    const issued = (commandId: string, attempt: number) =>
      ev({
        type: EventType.CommandIssued,
        commandId,
        payload: { command_id: commandId, step: 's', run_id: 'r1', kind: 'postgres', attempt, max_attempts: 3, spec: {} },
      });
    const state = foldEvents([
      started(),
      ev({ type: EventType.StepEnter, payload: { step: 's', run_id: 'r1', activation: 1 } }),
      issued('c1', 1),
      partial('c1', 0),
      partial('c1', 1),
    ])!;
    expect(state.runs.r1?.streamed).toEqual({ chunks: 2, commandId: 'c1' });
    for (const event of [issued('c2', 2), partial('c2', 0), partial('c2', 1)]) applyEvent(state, event);
    expect(state.runs.r1?.streamed).toEqual({ chunks: 2, commandId: 'c1' });
    applyEvent(state, partial('c2', 2));
    expect(state.runs.r1?.streamed).toEqual({ chunks: 3, commandId: 'c2' });
    const chunk = { step: 's', run_id: 'r1', command_id: 'c2', chunk_index: 2, has_more: false, row_count: 1, rows_ref: rowsRef };
    applyEvent(state, ev({ type: EventType.StepEnter, payload: { step: 't', run_id: 'rt', activation: 1, chunk } }));
    expect(state.runs.rt?.chunk).toEqual(chunk);
  });

  it('moves a fan-out shard with its commands: RETRYING while it has runs left, counted once when terminal', () => {
    const shard = (commandId: string, attempt: number) =>
      ev({
        type: EventType.CommandIssued,
        commandId,
        payload: {
          command_id: commandId,
          step: 'f',
          run_id: 'r1',
          kind: 'noop',
          attempt,
          max_attempts: 2,
          spec: {},
          loop_id: 'l1',
          iteration: 0,
        },
      });
    const state = foldEvents([
      started(),
      ev({ type: EventType.StepEnter, payload: { step: 'f', run_id: 'r1', activation: 1 } }),
      ev({
        type: EventType.LoopStarted,
        loopId: 'l1',
        payload: {
          loop_id: 'l1',
          step: 'f',
          run_id: 'r1',
          epoch: 1,
          size: 1,
          collection: [7],
          mode: 'parallel',
          max_in_flight: 1,
          stage_id: 's1',
        },
      }),
      shard('c1', 1),
      ev({ type: EventType.CommandFailed, commandId: 'c1', payload: { error: { kind: 'code', message: 'boom' } } }),
    ])!;
    expect(state.loops.l1?.shards).toEqual({ 0: { commandId: 'c1', status: 'RETRYING', error: { kind: 'code', message: 'boom' } } });
    expect(state.loops.l1).toMatchObject({ succeededRows: 0, failedRows: 0 });
    applyEvent(state, shard('c2', 2));
    applyEvent(state, ev({ type: EventType.CommandAbandoned, commandId: 'c2', payload: { attempt: 2, reason: 'lease expired' } }));
    expect(state.loops.l1?.shards?.[0]).toMatchObject({ commandId: 'c2', status: 'FAILED', error: { kind: 'internal' } });
    expect(state.loops.l1).toMatchObject({ succeededRows: 0, failedRows: 1 });
    applyEvent(state, ev({ type: EventType.CommandCancelled, commandId: 'c1', payload: {} }));
    expect(state.loops.l1).toMatchObject({ failedRows: 1 });
  });

  it('ends the execution with its result', () => {
    const state = foldEvents([started(), ev({ type: EventType.ExecutionCompleted, payload: { result: { x: 1 } } })])!;
    expect(state).toMatchObject({ status: 'COMPLETED', result: { x: 1 } });
  });

  it('keeps signals in arrival order until a step exit consumes one, and leaves a state without signals unchanged', () => {
    const state = foldEvents([started()])!;
    expect(state).not.toHaveProperty('signals');
    const first = ev({ type: EventType.SignalReceived, payload: { name: 'approval', payload: { n: 1 } } });
    const second = ev({ type: EventType.SignalReceived, payload: { name: 'approval', payload: { n: 2 } } });
    foldEvents([first, second, ev({ type: EventType.SignalReceived, payload: { name: 'other', payload: null } })], state);
    expect(state.signals?.approval?.map((signal) => signal.payload)).toEqual([{ n: 1 }, { n: 2 }]);

    foldEvents(
      [
        ev({ type: EventType.StepEnter, payload: { step: 'wait', run_id: 'r1', activation: 1 } }),
        ev({
          type: EventType.StepExit,
          payload: {
            step: 'wait',
            run_id: 'r1',
            status: 'COMPLETED',
            result: { n: 2 },
            signal: { name: 'approval', event_id: second.event_id },
          },
        }),
      ],
      state,
    );
    expect(state.signals?.approval?.map((signal) => signal.eventId)).toEqual([first.event_id]);
    expect(state.results.wait).toEqual({ value: { n: 2 } });
  });

  it('records the schedule and fire time that started the execution', () => {
    const state = foldEvents([
      started(),
      ev({ type: EventType.ScheduleFired, payload: { schedule_id: '9', fire_time: '2026-01-01T00:00:00.000Z' } }),
    ])!;
    expect(state.schedule).toEqual({ scheduleId: '9', fireTime: '2026-01-01T00:00:00.000Z' });
  });

  it('refuses histories that cannot happen', () => {
    expect(() => applyEvent(undefined, ev({ type: EventType.CtxUpdated, payload: { set: {} } }))).toThrow(FoldError);
    const state = foldEvents([started()])!;
    expect(() => applyEvent(state, started())).toThrow('started twice');
    expect(() => applyEvent(state, ev({ type: EventType.CommandStarted, commandId: 'nope', payload: { worker_id: 'w' } }))).toThrow(
      'unknown command',
    );
  });
});

describe('setPath', () => {
  it('refuses keys that reach a prototype', () => {
    expect(() => setPath({}, '__proto__.polluted', 1)).toThrow(RangeError);
    expect(() => setPath({}, 'a.constructor.prototype', 1)).toThrow(RangeError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('replaces non-objects on the way', () => {
    const target: Record<string, never> = JSON.parse('{"a":5}');
    setPath(target, 'a.b', 1);
    expect(target).toEqual({ a: { b: 1 } });
  });
});
