import type { EventError } from '@noetl/event-kernel';
import { escapeNul, nulPath } from '@noetl/storage';
import type { CommandOutcome } from './command-outcome';
import type { CommitFrameRequest, FrameRowReport } from './control-plane';

/**
 * Reports the ledger can hold. PostgreSQL's jsonb refuses U+0000 in a
 * string, and a report that cannot be written would only lose its lease and
 * have the work run again, to the same end. So a result or `ctx` that holds
 * one fails its command (or row) at once, for good, saying where; in an
 * error or a call report (text a person reads) the character is escaped.
 */
export function storableOutcome(outcome: CommandOutcome): CommandOutcome {
  if (outcome.status === 'FAILED') return escapeNul(outcome);
  const at = nulPath(outcome.result ?? null, 'result') ?? nulPath(outcome.ctx ?? {}, 'ctx');
  const calls = {
    ...(outcome.calls ? { calls: escapeNul(outcome.calls) } : {}),
    ...(outcome.output ? { output: escapeNul(outcome.output) } : {}),
  };
  if (at === undefined) return { ...outcome, ...calls };
  const { result: _result, ctx: _ctx, ...rest } = outcome;
  return { ...rest, ...calls, status: 'FAILED', error: unstorable(at) };
}

/** A frame's report the ledger can hold: a row whose result holds U+0000 fails; every row fails when the frame's `ctx` does. */
export function storableFrameReport(request: CommitFrameRequest): CommitFrameRequest {
  const ctxAt = nulPath(request.ctx ?? {}, 'ctx');
  const rows = request.rows.map((row): FrameRowReport => {
    const at = ctxAt ?? nulPath(row.result ?? null, `result (row ${row.index})`);
    if (at === undefined) return row.error ? { ...row, error: escapeNul(row.error) } : row;
    return { index: row.index, status: 'error', error: unstorable(at) };
  });
  const { ctx, ...rest } = request;
  return { ...rest, rows, ...(ctx && ctxAt === undefined ? { ctx } : {}) };
}

function unstorable(at: string): EventError {
  return {
    kind: 'unstorable_result',
    message: `${at} holds a NUL character (U+0000), which the ledger (PostgreSQL jsonb) cannot store; remove it in the step's code (for example replace "\\u0000")`,
    retryable: false,
  };
}
