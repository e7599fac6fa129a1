import { EventType, type LedgerEvent } from '@noetl/event-kernel';

/** What a bar of the timeline stands for: a command's run, a loop frame's run, a retry's delay, or a wait (a timer, or a step waiting for a signal). */
export type TimelineKind = 'command' | 'frame' | 'retry' | 'wait';

/** A point of the ledger: the event's position (1 for the first) and time. */
export interface TimelinePoint {
  position: number;
  time: string;
}

/**
 * One bar of an execution's Gantt. A page showing the state at position p
 * draws the bars that began at or before p, ended (with `status`) when
 * `end.position` <= p and still open otherwise, with the worker once
 * `claimed.position` <= p.
 */
export interface TimelineBar {
  kind: TimelineKind;
  /** The command, frame (and attempt) or timer id. */
  id: string;
  step: string;
  attempt?: number;
  max_attempts?: number;
  /** A loop command's iteration, or a frame's index in its stage (once it is known). */
  index?: number;
  worker_id?: string;
  /** How it ended: COMPLETED, FAILED, ABANDONED, CANCELLED (commands), COMMITTED, FAILED, ABANDONED (frames), FIRED (retries, timers), SIGNALLED (a wait for a signal). */
  status?: string;
  begin: TimelinePoint;
  claimed?: TimelinePoint;
  end?: TimelinePoint;
  /** When a retry or a timer is due. */
  due_at?: string;
}

const COMMAND_ENDS: Partial<Record<LedgerEvent['event_type'], string>> = {
  [EventType.CommandCompleted]: 'COMPLETED',
  [EventType.CommandFailed]: 'FAILED',
  [EventType.CommandAbandoned]: 'ABANDONED',
  [EventType.CommandReleased]: 'RELEASED',
  [EventType.CommandCancelled]: 'CANCELLED',
};

/**
 * The bars of an execution's events, in the order they began. Each frame
 * attempt is a bar of its own (a frame abandoned by a dead worker is
 * dispatched again); a released command is claimed again on the same bar.
 */
export function timelineOf(events: readonly LedgerEvent[]): TimelineBar[] {
  const bars: TimelineBar[] = [];
  const commands = new Map<string, TimelineBar>();
  const frames = new Map<string, TimelineBar>();
  const timers = new Map<string, TimelineBar>();
  const stageSteps = new Map<string, string>();
  const stepRuns = new Map<string, TimelinePoint>();
  const open = (bar: TimelineBar): TimelineBar => (bars.push(bar), bar);

  for (const event of events) {
    const at: TimelinePoint = { position: event.stream_version, time: event.event_time };
    switch (event.event_type) {
      case EventType.StepEnter:
        stepRuns.set(event.payload.run_id, at);
        break;
      case EventType.StepExit: {
        const entered = stepRuns.get(event.payload.run_id);
        if (event.payload.signal && entered)
          open({ kind: 'wait', id: event.payload.run_id, step: event.payload.step, status: 'SIGNALLED', begin: entered, end: at });
        break;
      }
      case EventType.CommandIssued: {
        const { command_id, step, attempt, max_attempts, iteration } = event.payload;
        commands.set(
          command_id,
          open({
            kind: 'command',
            id: command_id,
            step,
            attempt,
            max_attempts,
            ...(iteration !== undefined ? { index: iteration } : {}),
            begin: at,
          }),
        );
        break;
      }
      case EventType.CommandClaimed: {
        const bar = event.command_id ? commands.get(event.command_id) : undefined;
        if (bar) Object.assign(bar, { worker_id: event.payload.worker_id, claimed: at });
        break;
      }
      case EventType.StageOpened:
        stageSteps.set(event.payload.stage_id, event.payload.step);
        break;
      case EventType.FrameDispatched: {
        const { frame_id, stage_id, worker_id, attempt } = event.payload;
        const step = stageSteps.get(stage_id) ?? event.node_name ?? stage_id;
        frames.set(frame_id, open({ kind: 'frame', id: `${frame_id}#${attempt}`, step, attempt, worker_id, begin: at, claimed: at }));
        break;
      }
      case EventType.FrameCommitted:
      case EventType.FrameFailed:
      case EventType.FrameAbandoned: {
        const bar = frames.get(event.payload.frame_id);
        if (!bar) break;
        if ('frame_index' in event.payload) bar.index = event.payload.frame_index;
        Object.assign(bar, {
          status:
            event.event_type === EventType.FrameCommitted
              ? 'COMMITTED'
              : event.event_type === EventType.FrameFailed
                ? 'FAILED'
                : 'ABANDONED',
          end: at,
        });
        break;
      }
      case EventType.RetryScheduled: {
        const { timer_id, step, attempt, due_at } = event.payload;
        timers.set(timer_id, open({ kind: 'retry', id: timer_id, step, attempt, due_at, begin: at }));
        break;
      }
      case EventType.TimerScheduled: {
        const { timer_id, step, due_at } = event.payload;
        timers.set(timer_id, open({ kind: 'wait', id: timer_id, step, due_at, begin: at }));
        break;
      }
      case EventType.TimerFired: {
        const bar = timers.get(event.payload.timer_id);
        if (bar) Object.assign(bar, { status: 'FIRED', end: at });
        break;
      }
      default: {
        const status = COMMAND_ENDS[event.event_type];
        const bar = status && event.command_id ? commands.get(event.command_id) : undefined;
        if (!bar || bar.end) break;
        if (status !== 'RELEASED') Object.assign(bar, { status, end: at });
        else {
          // Given back by a worker that stopped: claimable again, the bar waits for its next claim.
          delete bar.worker_id;
          delete bar.claimed;
        }
      }
    }
  }
  // A wait for a signal is known at its end: put it back where it began.
  return bars.sort((a, b) => a.begin.position - b.begin.position);
}
