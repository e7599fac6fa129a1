import { buildEvent, sealEvent, type EventDraft, type LedgerEvent } from '../envelope';
import { EventType, type EventTypeName } from '../event-types';
import { ID_EPOCH_MS, SnowflakeIds } from '../ids';
import { applyEvent, foldEvents } from './apply-event';
import type { ExecutionState } from './execution-state';
import { TentativeFold } from './tentative-fold';

const ids = new SnowflakeIds(4, () => ID_EPOCH_MS + 1);
const context = { ids, now: () => new Date(Date.UTC(2026, 0, 1)), producer: 'test', tenantId: 't', organizationId: 'o' };
let version = 0;
function ev<T extends EventTypeName>(draft: Omit<EventDraft<T>, 'executionId'>): LedgerEvent {
  return sealEvent(buildEvent({ ...draft, executionId: '100' } as EventDraft<T>, context), ++version, new Date(0)) as LedgerEvent;
}

/** An execution with a fan-in waiting (`pending.join` holds two arrivals), a finished step and ctx. */
function history(): ExecutionState {
  return foldEvents([
    ev({ type: EventType.ExecutionStarted, payload: { path: 'p', version: 1, catalog_id: '5', workload: { a: 1, nested: { x: 1 } } } }),
    ev({ type: EventType.StepEnter, payload: { step: 'a', run_id: 'ra', activation: 1 } }),
    ev({ type: EventType.StepEnter, payload: { step: 'b', run_id: 'rb', activation: 1 } }),
    ev({
      type: EventType.CommandIssued,
      commandId: 'c1',
      payload: { command_id: 'c1', step: 'a', run_id: 'ra', kind: 'noop', attempt: 1, max_attempts: 3, spec: {} },
    }),
    ev({ type: EventType.StepExit, payload: { step: 'a', run_id: 'ra', status: 'COMPLETED', result: { n: 1 }, next: ['join', 'later'] } }),
    ev({ type: EventType.StepExit, payload: { step: 'b', run_id: 'rb', status: 'COMPLETED', result: 2, next: ['join'] } }),
  ])!;
}

/** Decisions of the kinds the planner folds: an entry consuming arrivals, a command, ctx writes, an exit, a timer, the end. */
function batch(): LedgerEvent[] {
  return [
    ev({ type: EventType.StepEnter, payload: { step: 'join', run_id: 'rj', activation: 1, arrivals: ['ra', 'rb'] } }),
    ev({
      type: EventType.CommandIssued,
      commandId: 'c2',
      payload: { command_id: 'c2', step: 'join', run_id: 'rj', kind: 'noop', attempt: 1, max_attempts: 3, spec: {} },
    }),
    ev({ type: EventType.CtxUpdated, payload: { set: { 'nested.y': [1, 2], fresh: 'v', a: 2 } } }),
    ev({ type: EventType.StepExit, payload: { step: 'join', run_id: 'rj', status: 'COMPLETED', result: { j: true }, next: ['later'] } }),
    ev({
      type: EventType.TimerScheduled,
      payload: { timer_id: 't1', purpose: 'sleep', step: 'later', run_id: 'rj', due_at: '2026-01-01T00:00:01.000Z' },
    }),
    ev({ type: EventType.ExecutionCompleted, payload: { result: { done: 1 } } }),
  ];
}

describe('TentativeFold', () => {
  it('folds a batch exactly as applyEvent on a copy would', () => {
    const events = batch();
    const expected = structuredClone(history());
    for (const event of events) applyEvent(expected, event);
    const state = history();
    const fold = new TentativeFold(state);
    for (const event of events) fold.apply(event);
    expect(JSON.stringify(state)).toBe(JSON.stringify(expected));
  });

  it('puts the state back as it was, key order included, and keeps no proxy in it', () => {
    const state = history();
    const before = JSON.stringify(state);
    const pendingKeys = Object.keys(state.pending);
    const fold = new TentativeFold(state);
    for (const event of batch()) fold.apply(event);
    expect(state.pending.join).toBeUndefined();
    fold.undo();
    expect(JSON.stringify(state)).toBe(before);
    expect(Object.keys(state.pending)).toEqual(pendingKeys);
    expect(state.runs.ra!.commandIds).toEqual(['c1']);
    // The same fold again, on the restored state, gives the same result: nothing was left half undone.
    const again = new TentativeFold(state);
    for (const event of batch()) again.apply(event);
    expect(structuredClone(state)).toEqual(state);
  });
});
