import { buildEvent, sealEvent, type EventDraft, type LedgerEvent } from '../envelope';
import { EventType, type EventTypeName } from '../event-types';
import { ID_EPOCH_MS, SnowflakeIds } from '../ids';
import { applyEvent, foldEvents } from './apply-event';
import type { ExecutionState } from './execution-state';
import { liveWork } from './live-work';
import { TentativeFold } from './tentative-fold';

const ids = new SnowflakeIds(5, () => ID_EPOCH_MS + 1);
const context = { ids, now: () => new Date(Date.UTC(2026, 0, 1)), producer: 'test', tenantId: 't', organizationId: 'o' };
let version = 0;
function ev<T extends EventTypeName>(draft: Omit<EventDraft<T>, 'executionId'>): LedgerEvent {
  return sealEvent(buildEvent({ ...draft, executionId: '100' } as EventDraft<T>, context), ++version, new Date(0)) as LedgerEvent;
}

const loopStarted = (loopId: string, runId: string) =>
  ev({
    type: EventType.LoopStarted,
    payload: {
      loop_id: loopId,
      step: 'l',
      run_id: runId,
      epoch: 1,
      size: 1,
      collection: [1],
      mode: 'sequential',
      max_in_flight: 1,
      stage_id: `s${loopId}`,
    },
  });

function history(): ExecutionState {
  return foldEvents([
    ev({ type: EventType.ExecutionStarted, payload: { path: 'p', version: 1, catalog_id: '5', workload: {} } }),
    ev({ type: EventType.StepEnter, payload: { step: 'a', run_id: 'ra', activation: 1 } }),
    ev({ type: EventType.StepEnter, payload: { step: 'b', run_id: 'rb', activation: 1 } }),
    ev({ type: EventType.StepExit, payload: { step: 'a', run_id: 'ra', status: 'COMPLETED', result: 1 } }),
    ev({ type: EventType.StepEnter, payload: { step: 'l', run_id: 'rl', activation: 1 } }),
    loopStarted('L1', 'rl'),
    ev({
      type: EventType.TimerScheduled,
      payload: { timer_id: 't1', purpose: 'sleep', step: 'b', run_id: 'rb', due_at: '2026-01-01T00:00:01.000Z' },
    }),
    ev({
      type: EventType.TimerScheduled,
      payload: { timer_id: 't2', purpose: 'sleep', step: 'b', run_id: 'rb', due_at: '2026-01-01T00:00:02.000Z' },
    }),
    ev({ type: EventType.TimerFired, payload: { timer_id: 't1', purpose: 'sleep' } }),
  ])!;
}

describe('liveWork', () => {
  it('is what is running, kept by the fold, and equal to the index built from a copy read back from JSON', () => {
    const state = history();
    expect(liveWork(state)).toEqual({ runs: { rb: true, rl: true }, timers: { t2: true }, loops: { L1: true } });
    const copy = JSON.parse(JSON.stringify(state)) as ExecutionState;
    expect(Object.keys(copy)).toEqual(Object.keys(state));
    expect(liveWork(copy)).toEqual(liveWork(state));
    applyEvent(state, ev({ type: EventType.StepExit, payload: { step: 'b', run_id: 'rb', status: 'FAILED' } }));
    applyEvent(
      state,
      ev({
        type: EventType.LoopDone,
        payload: { loop_id: 'L1', step: 'l', run_id: 'rl', status: 'complete', total: 1, succeeded: 1, failed: 0 },
      }),
    );
    expect(liveWork(state)).toEqual({ runs: { rl: true }, timers: { t2: true }, loops: {} });
  });

  it('takes back what a tentative fold changed in it', () => {
    const state = history();
    const before = structuredClone(liveWork(state));
    const fold = new TentativeFold(state);
    fold.apply(ev({ type: EventType.StepExit, payload: { step: 'b', run_id: 'rb', status: 'COMPLETED', result: 2 } }));
    fold.apply(ev({ type: EventType.TimerFired, payload: { timer_id: 't2', purpose: 'sleep' } }));
    fold.apply(ev({ type: EventType.StepEnter, payload: { step: 'c', run_id: 'rc', activation: 1 } }));
    expect(liveWork(state)).toEqual({ runs: { rl: true, rc: true }, timers: {}, loops: { L1: true } });
    fold.undo();
    expect(liveWork(state)).toEqual(before);
  });
});
