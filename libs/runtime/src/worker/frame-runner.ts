import {
  isJsonObject,
  readLoopBodySpec,
  runFrame,
  toCallErrorInfo,
  toPlainJson,
  withResultViews,
  type CursorSpec,
  type FrameArgs,
  type InterpreterDeps,
  type LoopBodySpec,
} from '@noetl/dsl';
import type { Holder, ClaimedFrame, CommitFrameRequest, FailRequest } from '../control-plane/control-plane';
import { eventErrorOf } from './call-errors';
import type { WorkerRun } from './command-runner';

export type FrameReport =
  { status: 'COMMITTED'; request: Omit<CommitFrameRequest, keyof Holder> } | { status: 'FAILED'; request: Omit<FailRequest, keyof Holder> };

/**
 * Interprets a claimed frame's loop body in process (DSL.md s4.1): its rows,
 * or for a cursor loop the rows its claim SQL leases now (`__frame_max_rows`
 * of them; none means the cursor is drained and the frame commits empty).
 * Row failures are row outcomes; only a frame that cannot run at all (a
 * failing cursor claim) is FAILED.
 */
export async function runClaimedFrame(frame: ClaimedFrame, signal: AbortSignal, run: WorkerRun): Promise<FrameReport> {
  // Row results, errors and ctx leave the worker scrubbed of the run's secrets (before the Arrow encoding of the rows).
  return run.secrets.scrub(await interpretFrame(frame, signal, run));
}

async function interpretFrame(frame: ClaimedFrame, signal: AbortSignal, run: WorkerRun): Promise<FrameReport> {
  const deps = run.interpreter;
  let spec: LoopBodySpec;
  let scope: Record<string, unknown>;
  let rows: unknown[] = frame.rows;
  let firstIndex = frame.first_index;
  try {
    spec = readLoopBodySpec(frame.spec, frame.step);
    scope = await run.scopeWithKeychain(spec, withResultViews(frame.scope, frame.result_views ?? {}), signal);
    if (spec.cursor) {
      rows = await claimCursorRows(spec.cursor, spec.max_rows, scope, signal, deps);
      firstIndex = frame.frame_index * spec.max_rows;
    }
  } catch (error) {
    return { status: 'FAILED', request: { error: eventErrorOf(toCallErrorInfo(error), frame.step) } };
  }
  const outcome = await runFrame(
    { ...loopBodyArgs(spec), rows, firstIndex, total: frame.total, frameIndex: frame.frame_index, scope, signal, recordCalls: false },
    deps,
  );
  const ctx = toPlainJson(outcome.ctx);
  return {
    status: 'COMMITTED',
    request: {
      // One object per row, made once: a frame's rows live until its commit, long enough to reach the old generation.
      rows: outcome.rows.map((row) =>
        row.status === 'ok'
          ? { index: row.index, status: row.status, result: toPlainJson(row.result) }
          : { index: row.index, status: row.status, ...(row.error ? { error: eventErrorOf(row.error, frame.step) } : {}) },
      ),
      ...(isJsonObject(ctx) ? { ctx } : {}),
    },
  };
}

/** A loop body (a frame's, or a fan-out shard command's spec) as the interpreter takes it. */
export function loopBodyArgs(
  spec: LoopBodySpec,
): Omit<FrameArgs, 'rows' | 'firstIndex' | 'total' | 'frameIndex' | 'scope' | 'signal' | 'recordCalls'> {
  return {
    stepName: spec.step,
    tool: spec.tool,
    stepInput: spec.input,
    retry: spec.retry,
    iterator: spec.iterator,
    process: spec.process,
    ...(spec.sink ? { sink: spec.sink } : {}),
    rowConcurrency: spec.row_concurrency,
  };
}

/** Runs the cursor's claim SQL through the postgres tool; its rows are the frame's rows. */
async function claimCursorRows(
  cursor: CursorSpec,
  maxRows: number,
  scope: Record<string, unknown>,
  signal: AbortSignal,
  deps: InterpreterDeps,
): Promise<unknown[]> {
  const claimScope = { ...scope, __frame_max_rows: maxRows };
  const config: Record<string, unknown> = { command: await deps.render.renderString(cursor.claim, claimScope) };
  if (cursor.auth !== undefined) config['auth'] = await deps.render.renderString(cursor.auth, claimScope);
  if (cursor.connection !== undefined) config['connection'] = await deps.render.renderString(cursor.connection, claimScope);
  const result = await deps.callTool('postgres', config, signal);
  const rows = isJsonObject(toPlainJson(result)) ? (result as { rows?: unknown }).rows : undefined;
  return Array.isArray(rows) ? rows : [];
}
