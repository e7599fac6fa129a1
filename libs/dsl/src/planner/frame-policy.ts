import type { JsonObject } from '@noetl/event-kernel';
import type { FramePolicy } from '../model';

/** Rows per frame (`frame.max_rows`, at least 1). */
export function maxRowsOf(frame: FramePolicy): number {
  return Number.isInteger(frame.maxRows) && frame.maxRows > 0 ? frame.maxRows : 1;
}

/** The frame policy as `stage.opened` records it, in the DSL's spelling. */
export function framePolicyJson(frame: FramePolicy): JsonObject {
  return {
    max_rows: maxRowsOf(frame),
    max_seconds: frame.maxSeconds,
    max_bytes: frame.maxBytes,
    lease_seconds: frame.leaseSeconds,
    heartbeat_seconds: frame.heartbeatSeconds,
    process: frame.process,
    max_attempts: frame.maxAttempts,
    row_concurrency: frame.rowConcurrency,
  };
}
