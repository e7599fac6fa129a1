import type { CallErrorInfo, JsonObject, Policy, Sink, ToolSpec } from '../model';
import { evaluatePolicies } from '../policy';
import { toCallErrorInfo } from './call-errors';
import type { CallRecord, InterpreterDeps, StepCallResult } from './interpreter-deps';
import { runSinkRecorded } from './run-sink';
import { extendScope } from './run-state';
import { merged } from './write-path';
import { runStepCall } from './run-step-call';
import { directRow, type IterationOutcome } from './direct-row';

export interface FrameArgs {
  stepName: string;
  tool: ToolSpec;
  stepInput: JsonObject;
  /** The step's unified `retry:` policies: error-side ones retry a failing row in process. */
  retry: Policy[];
  /** Bound as `iter.<iterator>` and as the bare name. */
  iterator: string;
  /** row: the body once per row; frame: once for the frame, with `frame.rows`. */
  process: 'row' | 'frame';
  sink?: Sink;
  /** The frame's rows, in collection order. */
  rows: unknown[];
  /** Collection index of `rows[0]`. */
  firstIndex: number;
  /** Collection size; null when unknown (a cursor loop). */
  total: number | null;
  frameIndex: number;
  /** Rows run at once inside the frame (`frame.row_concurrency`). */
  rowConcurrency: number;
  scope: Record<string, unknown>;
  signal: AbortSignal;
  /** Keep each call's record (a fan-out shard reports them); a frame's calls are no event, so a frame does not. */
  recordCalls: boolean;
}

export interface RowResult {
  /** Collection index. */
  index: number;
  status: 'ok' | 'error';
  result?: unknown;
  error?: CallErrorInfo;
}

export interface FrameRunResult {
  /** In row order. */
  rows: RowResult[];
  /** `ctx.*` writes of the rows, flat by dotted key, applied in row order. */
  ctx: Record<string, unknown>;
  /** Empty unless `recordCalls`. */
  calls: CallRecord[];
}

/**
 * Interprets a loop body for one frame in process (DSL.md s4, s4.1): per row
 * (or once, `process: frame`) the step's tool or pipeline runs with the
 * iteration in scope; a failing row is retried here by the step's
 * error-side policies, with their backoff; a row that succeeds runs the
 * per-iteration `sink` in the same unit of work, and a failing sink fails the
 * row. Never throws for a row's failure: the row says `error`.
 *
 * `process: frame` runs the body and the sink once for the frame; every row
 * shares its outcome. A row's result is its own item when the body returned
 * a list of one item per row (a pipeline: when its last task did), else the
 * body's whole result.
 */
export async function runFrame(args: FrameArgs, deps: InterpreterDeps): Promise<FrameRunResult> {
  const calls: CallRecord[] = [];
  if (args.process === 'frame') {
    const scope = extendScope(args.scope, {
      frame: { rows: args.rows, row_count: args.rows.length, index: args.frameIndex },
      loop: { index: args.firstIndex, length: args.total },
    });
    const outcome = await runIteration(args, scope, calls, deps);
    const perRow = perRowResults(outcome.result, args.rows.length, args.tool.pipeline);
    const rows = args.rows.map((_, position): RowResult => ({
      ...outcome.row,
      index: args.firstIndex + position,
      ...(outcome.row.status === 'ok' ? { result: perRow ? perRow[position] : outcome.result } : {}),
    }));
    return { rows, ctx: outcome.ctx, calls };
  }
  // One outcome per row, and a row's ctx writes only when it made some: a frame's rows stay alive until its commit.
  const rows: RowResult[] = new Array(args.rows.length);
  const ctxWrites: (Record<string, unknown> | undefined)[] = new Array(args.rows.length);
  // Compiled once for the frame: a body with nothing to decide per row is a direct call.
  const direct = directRow(args, deps);
  let next = 0;
  let turnBegan = deps.monotonicMs();
  const lane = async (): Promise<void> => {
    while (next < args.rows.length) {
      if (deps.yieldTurn && deps.monotonicMs() - turnBegan >= TURN_MS) {
        await deps.yieldTurn();
        turnBegan = deps.monotonicMs();
      }
      const position = next++;
      const index = args.firstIndex + position;
      const scope = (): Record<string, unknown> => rowScope(args, position, index);
      const outcome = direct ? await direct(scope, calls) : await runIteration(args, scope(), calls, deps);
      rows[position] = outcome.row.status === 'ok' ? { index, status: 'ok', result: outcome.result } : { ...outcome.row, index };
      for (const _ in outcome.ctx) {
        ctxWrites[position] = outcome.ctx;
        break;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(args.rowConcurrency, args.rows.length)) }, lane));
  const ctx: Record<string, unknown> = {};
  for (const writes of ctxWrites) {
    if (!writes) continue;
    for (const [key, value] of Object.entries(writes)) {
      delete ctx[key];
      ctx[key] = value;
    }
  }
  return { rows, ctx, calls };
}

/** The render scope of the row at `position`: the iterator bound as `iter.<iterator>` and as the bare name, and `loop`. */
function rowScope(args: FrameArgs, position: number, index: number): Record<string, unknown> {
  const item = args.rows[position];
  const iter = merged(isRecord(args.scope['iter']) ? args.scope['iter'] : {}, {
    [args.iterator]: item,
    _index: index,
    _first: index === 0,
    _last: args.total !== null && index === args.total - 1,
  });
  return extendScope(args.scope, { [args.iterator]: item, iter, loop: { index, length: args.total } });
}

/** How long a frame's rows run before they let the process's other work in (InterpreterDeps.yieldTurn). */
const TURN_MS = 5;

/** One iteration: the call with in-process error retry, then the sink (retried the same way). */
async function runIteration(
  args: FrameArgs,
  scope: Record<string, unknown>,
  calls: CallRecord[],
  deps: InterpreterDeps,
): Promise<IterationOutcome> {
  let outcome: StepCallResult;
  for (let attempt = 1; ; attempt++) {
    outcome = await runStepCall(
      { stepName: args.stepName, tool: args.tool, stepInput: args.stepInput, retry: args.retry, scope, signal: args.signal },
      deps,
    );
    if (args.recordCalls) calls.push(...outcome.calls);
    if (outcome.status === 'ok' || args.signal.aborted) break;
    let decision;
    try {
      decision = await errorDecision(args, outcome.error, attempt, scope, deps);
    } catch (error) {
      return { row: { status: 'error', error: toCallErrorInfo(error) }, ctx: outcome.ctx };
    }
    if (decision.kind === 'retry') {
      await deps.sleep(decision.delayMs, args.signal).catch(() => undefined);
      continue;
    }
    if (decision.kind === 'complete' || decision.kind === 'break') {
      // The policy lets the iteration proceed with the error as its result (as the durable path does for a step).
      return { row: { status: 'ok' }, result: { status: 'error', error: outcome.error }, ctx: outcome.ctx };
    }
    break;
  }
  if (outcome.status === 'error') return { row: { status: 'error', error: outcome.error }, ctx: outcome.ctx };
  if (args.sink) {
    const sunk = await runIterationSink(args, args.sink, outcome, scope, calls, deps);
    if (sunk) return { row: { status: 'error', error: sunk }, ctx: outcome.ctx };
  }
  return { row: { status: 'ok' }, result: outcome.result, ctx: outcome.ctx };
}

/**
 * The iteration's sink, retried alone (the call is not made again) by the
 * step's error-side retry policies like the call itself: a write that failed
 * on a transient error (the database restarting, a credential lookup the API
 * could not answer) does not fail a row whose call succeeded. Returns the
 * error that fails the row, if any.
 */
async function runIterationSink(
  args: FrameArgs,
  sink: NonNullable<FrameArgs['sink']>,
  outcome: Extract<StepCallResult, { status: 'ok' }>,
  scope: Record<string, unknown>,
  calls: CallRecord[],
  deps: InterpreterDeps,
): Promise<CallErrorInfo | undefined> {
  for (let attempt = 1; ; attempt++) {
    const run = await runSinkRecorded(
      sink,
      { iterationResult: outcome.result, scope: extendScope(scope, { iter: outcome.iter }), signal: args.signal },
      deps,
    );
    if (args.recordCalls) calls.push(...run.records);
    if (run.status === 'ok') return undefined;
    if (args.signal.aborted) return run.error;
    let decision;
    try {
      decision = await errorDecision(args, run.error, attempt, scope, deps);
    } catch (error) {
      return toCallErrorInfo(error);
    }
    if (decision.kind !== 'retry') return run.error;
    await deps.sleep(decision.delayMs, args.signal).catch(() => undefined);
  }
}

/** What the step's retry policies say about an iteration's error at `attempt`. */
function errorDecision(args: FrameArgs, error: CallErrorInfo, attempt: number, scope: Record<string, unknown>, deps: InterpreterDeps) {
  return deps.render.settle((renderer) =>
    evaluatePolicies(
      args.retry,
      { status: 'error', error, attempt, durationMs: 0 },
      {
        evaluateWhen: (when, whenScope) => renderer.evaluateCondition(when, whenScope),
        random: deps.random,
        scope,
      },
    ),
  );
}

/** The list of one item per row that a `process: frame` body returned, if it did. */
function perRowResults(result: unknown, rowCount: number, pipeline: boolean): unknown[] | undefined {
  // A pipeline's result holds each task's result under `results`, the last task run last.
  const returned = pipeline && isRecord(result) && isRecord(result['results']) ? Object.values(result['results']).at(-1) : result;
  return Array.isArray(returned) && returned.length === rowCount ? returned : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
