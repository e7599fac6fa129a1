import { EventType, type EventDraft, type EventTypeName, type Json, type PayloadRef, type RowOutcome } from '@noetl/event-kernel';
import type { FrameRow, LockedFrame } from '@noetl/storage';
import type { CommitFrameRequest, FrameRowReport } from './control-plane';

/** Where a frame's events go: its execution's stream, its step, loop, stage and frame. */
export interface FrameWhere {
  executionId: string;
  step: string;
  loopId: string;
  stageId: string;
  frameId: string;
}

/** What a worker reported of a frame it commits, its output stored. */
export interface FrameCommitReport {
  request: CommitFrameRequest;
  rows: FrameRowReport[];
  /** The rows' results inline in the event when they fit, else the rows as Arrow in the payload store. */
  output: { results: Json[] } | { outputRef: PayloadRef };
}

export function where(frame: FrameRow): FrameWhere {
  return {
    executionId: frame.execution_id,
    step: frame.step_name,
    loopId: frame.loop_id,
    stageId: frame.stage_id,
    frameId: frame.frame_id,
  };
}

/** The `frame.committed` of a commit whose frame is locked. */
export function committedDraft(commit: FrameCommitReport, frame: LockedFrame): EventDraft<EventTypeName> {
  const { request, rows, output } = commit;
  const failedRows: RowOutcome[] = rows
    .filter((row) => row.status !== 'ok')
    .map((row) => ({ index: row.index, status: 'error', ...(row.error ? { error: row.error } : {}) }));
  return draft(where(frame), EventType.FrameCommitted, {
    frame_id: frame.frame_id,
    stage_id: frame.stage_id,
    frame_index: frame.frame_index,
    row_count: rows.length,
    first_index: rows[0]?.index ?? 0,
    failed_rows: failedRows,
    ...('results' in output ? { results: output.results } : { output_ref: output.outputRef }),
    ...(request.ctx && Object.keys(request.ctx).length > 0 ? { ctx: request.ctx } : {}),
  });
}

export function draft<T extends EventTypeName>(at: FrameWhere, type: T, payload: EventDraft<T>['payload']): EventDraft<EventTypeName> {
  return { type, ...at, payload } as EventDraft<EventTypeName>;
}
