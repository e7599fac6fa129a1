/**
 * The event vocabulary (DESIGN.md s5): the only place event type names are
 * spelled. Use `EventType.CommandIssued`, never the string literal.
 */
export const EventType = {
  ExecutionStarted: 'execution.started',
  ExecutionCompleted: 'execution.completed',
  ExecutionFailed: 'execution.failed',
  ExecutionCancelled: 'execution.cancelled',
  StepEnter: 'step.enter',
  StepExit: 'step.exit',
  CommandIssued: 'command.issued',
  CommandClaimed: 'command.claimed',
  CommandStarted: 'command.started',
  CommandHeartbeat: 'command.heartbeat',
  CommandCompleted: 'command.completed',
  CommandFailed: 'command.failed',
  CommandAbandoned: 'command.abandoned',
  /** A worker shutting down gave the command back unrun: claimable again, no attempt spent. */
  CommandReleased: 'command.released',
  CommandCancelled: 'command.cancelled',
  CallDone: 'call.done',
  CallError: 'call.error',
  /** One chunk of a streamed result (a `postgres` step with `stream`), ahead of `call.done`. */
  CallPartial: 'call.partial',
  RetryScheduled: 'retry.scheduled',
  TimerScheduled: 'timer.scheduled',
  TimerFired: 'timer.fired',
  CtxUpdated: 'ctx.updated',
  LoopStarted: 'loop.started',
  LoopDone: 'loop.done',
  StageOpened: 'stage.opened',
  StageClosed: 'stage.closed',
  FrameDispatched: 'frame.dispatched',
  FrameStarted: 'frame.started',
  FrameHeartbeat: 'frame.heartbeat',
  FrameCommitted: 'frame.committed',
  FrameFailed: 'frame.failed',
  FrameAbandoned: 'frame.abandoned',
  AdminAction: 'admin.action',
  /** An outside signal for a waiting step (`POST /api/executions/{id}/signals/{name}`), kept until a `wait` consumes it. */
  SignalReceived: 'signal.received',
  /** A schedule's fire time started this execution (right after its `execution.started`). */
  ScheduleFired: 'schedule.fired',
} as const;

export type EventTypeName = (typeof EventType)[keyof typeof EventType];

export const EVENT_TYPES: readonly EventTypeName[] = Object.values(EventType);

/** Exactly one of these ends an execution, and nothing follows it. */
export const TERMINAL_EXECUTION_EVENTS = [EventType.ExecutionCompleted, EventType.ExecutionFailed, EventType.ExecutionCancelled] as const;

/** A command's terminal events: a late or duplicate report after one of these is rejected. */
export const TERMINAL_COMMAND_EVENTS = [EventType.CommandCompleted, EventType.CommandFailed, EventType.CommandCancelled] as const;

export const TERMINAL_FRAME_EVENTS = [EventType.FrameCommitted, EventType.FrameFailed] as const;

export function isEventType(value: string): value is EventTypeName {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

export function isTerminalExecutionEvent(type: string): boolean {
  return (TERMINAL_EXECUTION_EVENTS as readonly string[]).includes(type);
}
