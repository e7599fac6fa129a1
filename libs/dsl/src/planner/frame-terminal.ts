import { EventType, type ExecutionState, type LedgerEvent } from '@noetl/event-kernel';
import { closeLoop, isLoopFinished } from './close-loop';
import type { PlanContext } from './plan-context';

type FrameTerminalEvent = Extract<LedgerEvent, { event_type: typeof EventType.FrameCommitted | typeof EventType.FrameFailed }>;

/**
 * A frame ended that writes no ctx and does not finish its loop: there is
 * nothing to decide. Checked before a planning pass copies the state, which
 * for a loop of many frames would cost O(frames) per frame.
 */
export function isQuietFrameEnd(state: ExecutionState, event: LedgerEvent): boolean {
  if (event.event_type !== EventType.FrameCommitted && event.event_type !== EventType.FrameFailed) return false;
  const loop = event.loop_id ? state.loops[event.loop_id] : undefined;
  if (!loop || loop.status !== 'RUNNING') return true;
  const writesCtx = event.event_type === EventType.FrameCommitted && Object.keys(event.payload.ctx ?? {}).length > 0;
  return !writesCtx && !isLoopFinished(loop);
}

/**
 * A frame became terminal: the `ctx.*` writes its rows made (policy `set`)
 * are recorded first, in commit order; when it was the epoch's last frame,
 * the loop closes.
 */
export function onFrameTerminal(ctx: PlanContext, event: FrameTerminalEvent): void {
  const loop = event.loop_id ? ctx.state.loops[event.loop_id] : undefined;
  if (!loop || loop.status !== 'RUNNING' || ctx.state.runs[loop.runId]?.status !== 'RUNNING') return;
  if (event.event_type === EventType.FrameCommitted) {
    const set = event.payload.ctx;
    if (set && Object.keys(set).length > 0) {
      ctx.emit({ type: EventType.CtxUpdated, step: loop.step, loopId: loop.loopId, payload: { set, step: loop.step } });
    }
  }
  const current = ctx.state.loops[loop.loopId];
  if (current && isLoopFinished(current)) closeLoop(ctx, loop.loopId);
}
