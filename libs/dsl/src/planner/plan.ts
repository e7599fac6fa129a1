import { EventType, TentativeFold, type EventDraft, type EventTypeName, type ExecutionState, type LedgerEvent } from '@noetl/event-kernel';
import type { Playbook } from '../model';
import { onExecutionCancelled } from './cancel-execution';
import { checkCompletion } from './check-completion';
import { onCommandCompleted } from './command-completed';
import { enterStep } from './enter-step';
import { isQuietShardEnd, isShardEnd, onShardEnd } from './fanout-shards';
import { onTimerFired } from './fire-timer';
import { isQuietFrameEnd, onFrameTerminal } from './frame-terminal';
import { PlanContext, type PlannerEnv } from './plan-context';
import { onCallPartial } from './on-call-partial';
import { onCommandAbandoned } from './reissue-abandoned';
import { releaseArrivals } from './release-arrivals';
import { onCommandFailed } from './schedule-retry';
import { onSignalReceived } from './wait-signal';

/** Events the planner answers; every other event (claims, heartbeats, call.*, its own decisions) needs none. */
const TRIGGERS: ReadonlySet<EventTypeName> = new Set<EventTypeName>([
  EventType.ExecutionStarted,
  EventType.ExecutionCancelled,
  EventType.CommandCompleted,
  EventType.CommandFailed,
  EventType.CommandAbandoned,
  EventType.TimerFired,
  EventType.FrameCommitted,
  EventType.FrameFailed,
  EventType.CallPartial,
  EventType.SignalReceived,
]);

/** Whether the planner answers events of this type: a caller skips the preparation (playbook, payloads) of one it does not. */
export function plansOn(type: EventTypeName): boolean {
  return TRIGGERS.has(type);
}

/**
 * The pure planner (DESIGN.md s4): `(playbook, state, event) -> decisions`.
 * `state` is the execution state AFTER folding `event`. Returns the drafts to
 * append, in order, each with idempotency key `plan:<event_id>:<n>` (n from
 * 0) and causation `event.event_id`. Decisions of one batch see each other:
 * each is folded into the state as it is made, and all are taken back before
 * it returns, so `state` is left as it was given. After the
 * trigger's own rule, waiting arrivals are released (fan-in) and the
 * execution completes when nothing is left. Nothing follows a terminal
 * execution, except the cancellation of its open commands when the trigger
 * is the cancellation itself.
 */
export function plan(playbook: Playbook, state: ExecutionState, event: LedgerEvent, env: PlannerEnv): EventDraft<EventTypeName>[] {
  if (!plansOn(event.event_type)) return [];
  const fold = new TentativeFold(state);
  try {
    return planFolding(playbook, fold, event, env);
  } finally {
    fold.undo();
  }
}

/** `plan`, folding its decisions into `fold`'s state as it makes them (the caller takes them back). */
function planFolding(playbook: Playbook, fold: TentativeFold, event: LedgerEvent, env: PlannerEnv): EventDraft<EventTypeName>[] {
  const state = fold.state;
  if (event.event_type === EventType.ExecutionCancelled) {
    const ctx = new PlanContext(playbook, fold, event, env);
    onExecutionCancelled(ctx, event);
    return ctx.drafts;
  }
  if (state.status !== 'RUNNING') return [];
  if (isQuietFrameEnd(state, event) || isQuietShardEnd(state, event)) return [];
  const ctx = new PlanContext(playbook, fold, event, env);
  if (isShardEnd(ctx.state, event)) onShardEnd(ctx, event);
  else planTrigger(ctx, event);
  releaseArrivals(ctx);
  checkCompletion(ctx);
  return ctx.drafts;
}

/** The rule of a trigger that is not a fan-out shard's end. */
function planTrigger(ctx: PlanContext, event: LedgerEvent): void {
  switch (event.event_type) {
    case EventType.ExecutionStarted:
      // A rerun from a step enters that step, with the original's results before it in the state.
      enterStep(ctx, event.payload.rerun_of?.from_step ?? ctx.playbook.executor.entryStep, []);
      break;
    case EventType.CommandCompleted:
      onCommandCompleted(ctx, event);
      break;
    case EventType.CommandFailed:
      onCommandFailed(ctx, event);
      break;
    case EventType.CommandAbandoned:
      onCommandAbandoned(ctx, event);
      break;
    case EventType.TimerFired:
      onTimerFired(ctx, event);
      break;
    case EventType.FrameCommitted:
    case EventType.FrameFailed:
      onFrameTerminal(ctx, event);
      break;
    case EventType.CallPartial:
      onCallPartial(ctx, event);
      break;
    case EventType.SignalReceived:
      onSignalReceived(ctx, event);
      break;
  }
}
