import {
  appendPart,
  EventType,
  LOOP_RESULT_MEDIA_TYPE,
  stagedJson,
  type EventError,
  type EventPayloads,
  type Json,
  type ListPart,
  type LoopState,
  type PayloadRef,
} from '@noetl/event-kernel';
import type { Playbook, Step } from '../model';
import { completeStep } from './complete-step';
import { guardStep } from './fail-step';
import { maxRowsOf } from './frame-policy';
import { StepFailure, type PlanContext } from './plan-context';
import { playbookScopeNames, stepScopeNames } from './scope-names';

/** How many iteration errors the failure message of a loop step quotes. */
const QUOTED_ERRORS = 5;

/** The rows of a loop epoch, in collection order, with what became of them. */
interface Aggregate {
  /** Every row's result, in collection order (empty for a lean close, which has `parts`). */
  results: Json[];
  /** A lean close: the parts that hold the results (frames' stored outputs, inline values, runs of nulls). */
  parts?: ListPart[];
  succeeded: number;
  failed: number;
  errors: { index: number; error: EventError }[];
  committedFrames: number;
  failedFrames: number;
}

/**
 * Every frame of the epoch is terminal (collection loops: as many terminal
 * frames as the stage was cut into; cursor loops: a committed empty claim and
 * nothing in flight); for a fan-out, every shard is terminal.
 */
export function isLoopFinished(loop: LoopState): boolean {
  // The fold counts each shard once, when it turns terminal: no walk over the shards per event.
  if (loop.shards) return loop.succeededRows + loop.failedRows >= (loop.size ?? 0);
  const frames = Object.values(loop.frames);
  if (loop.frameCount !== null) return frames.length >= loop.frameCount;
  return Object.keys(loop.inFlight).length === 0 && frames.some((f) => f.status === 'COMMITTED' && f.rowCount === 0);
}

/**
 * Closes a loop epoch (DSL.md s4): `loop.done` with the results in collection
 * order (frame index, then row; by a manifest's ref when it closes lean, see
 * `closesLean`), `stage.closed`, then the loop step completes with
 * `{results, stats}`; its arcs are evaluated once, with
 * `event.name == 'loop.done'` and `fanin = {status, done, failed, total}`
 * where `done` counts the finished iterations. Failed iterations make the
 * status `partial`; if no arc then fires, the step fails with their errors.
 */
export function closeLoop(ctx: PlanContext, loopId: string): void {
  const loop = ctx.state.loops[loopId];
  if (!loop || loop.status !== 'RUNNING') return;
  guardStep(ctx, loop.runId, loop.step, () => {
    const step = ctx.step(loop.step);
    const lean = closesLean(ctx.playbook, step, loop);
    const maxRows = step.loop ? maxRowsOf(step.loop.frame) : 1;
    const aggregate = loop.shards ? aggregateShards(ctx, loop) : aggregateFrames(ctx, loop, maxRows, lean);
    const { succeeded, failed } = aggregate;
    const total = loop.size ?? succeeded + failed;
    const status = failed > 0 ? 'partial' : 'complete';
    const stats = { total, succeeded, success: succeeded, failed };
    const staged = aggregate.parts ? stagedJson({ items: total, parts: aggregate.parts, stats }, LOOP_RESULT_MEDIA_TYPE) : undefined;
    const done: EventPayloads[typeof EventType.LoopDone] = {
      loop_id: loopId,
      step: loop.step,
      run_id: loop.runId,
      status,
      total,
      succeeded,
      failed,
      ...(staged ? { result_ref: staged.ref } : { results: aggregate.results }),
    };
    ctx.emit({
      type: EventType.LoopDone,
      step: loop.step,
      loopId,
      stageId: loop.stageId,
      payload: done,
      ...(staged ? { staged: [staged] } : {}),
    });
    ctx.emit({
      type: EventType.StageClosed,
      step: loop.step,
      loopId,
      stageId: loop.stageId,
      payload: { stage_id: loop.stageId, loop_id: loopId, committed: aggregate.committedFrames, failed: aggregate.failedFrames },
    });
    completeStep(ctx, loop.runId, {
      // A lean close: no template reads the results (closesLean), so the value is never rendered; the ref is the result.
      value: staged ? { stats } : { results: aggregate.results, stats },
      ...(staged ? { ref: staged.ref } : {}),
      trigger: { name: EventType.LoopDone, payload: done },
      fanin: { status, done: succeeded + failed, failed, total },
      ...(failed > 0 ? { unrouted: iterationsError(loop.step, aggregate, total) } : {}),
    });
  });
}

/**
 * Whether a loop closes lean (issue 23 item 6): its frames' outputs went to
 * the payload store, and nothing the scheduler renders can read its results
 * (no template names the step, its own templates name neither `event` nor
 * `output`, and no `set` writes into its result). Then the step's result is a
 * manifest of those outputs, stated by ref, and neither the scheduler nor the
 * projector ever holds every result; a reader that asks for them (the API, a
 * python step's scope) reads the parts.
 */
export function closesLean(playbook: Playbook, step: Step, loop: LoopState): boolean {
  if (loop.shards || !Object.values(loop.frames).some((frame) => frame.outputRef && !frame.results)) return false;
  const own = stepScopeNames(step);
  const writesResult = [...step.set, ...step.next.arcs.flatMap((arc) => arc.set)].some((op) => op.scope === 'step');
  return !writesResult && !own.has('event') && !own.has('output') && !playbookScopeNames(playbook).has(step.name);
}

/** The payloads closing `loop` reads, once it is finished (none before): its frames' stored outputs unless it closes lean, its shards' results. */
export function refsToClose(playbook: Playbook, loop: LoopState): PayloadRef[] {
  if (loop.status !== 'RUNNING' || !isLoopFinished(loop)) return [];
  if (loop.shards) return Object.values(loop.shards).flatMap((shard) => (shard.resultRef ? [shard.resultRef] : []));
  const step = playbook.steps.find((candidate) => candidate.name === loop.step);
  if (!step || closesLean(playbook, step, loop)) return [];
  // A frame whose results came inline is aggregated from them; only the others need their Arrow output read.
  return Object.values(loop.frames).flatMap((frame) => (frame.outputRef && !frame.results ? [frame.outputRef] : []));
}

function aggregateFrames(ctx: PlanContext, loop: LoopState, maxRows: number, lean: boolean): Aggregate {
  const results: Json[] = [];
  const parts: ListPart[] = [];
  const aggregate: Aggregate = {
    results,
    ...(lean ? { parts } : {}),
    succeeded: 0,
    failed: 0,
    errors: [],
    committedFrames: 0,
    failedFrames: 0,
  };
  const indices = Object.keys(loop.frames)
    .map(Number)
    .sort((a, b) => a - b);
  for (const index of indices) {
    const frame = loop.frames[index];
    if (!frame) continue;
    const first = index * maxRows;
    if (frame.status === 'FAILED') {
      aggregate.failedFrames += 1;
      const rows = loop.size === null ? 1 : Math.max(0, Math.min(maxRows, loop.size - first));
      if (lean) appendPart(parts, { nulls: rows });
      else for (let row = 0; row < rows; row += 1) results.push(null);
      aggregate.failed += rows;
      const error = frame.error ?? { kind: 'internal', message: `frame ${index} failed` };
      aggregate.errors.push({ index: first, error });
      continue;
    }
    aggregate.committedFrames += 1;
    if (lean && frame.outputRef && !frame.results) appendPart(parts, { ref: frame.outputRef, items: frame.rowCount });
    else {
      const rows = frameResults(ctx, loop, frame.results, frame.outputRef, index);
      const count = Math.max(frame.rowCount, rows.length);
      if (lean) appendPart(parts, { values: Array.from({ length: count }, (_, row) => rows[row] ?? null) });
      else for (let row = 0; row < count; row += 1) results.push(rows[row] ?? null);
    }
    aggregate.succeeded += frame.rowCount - frame.failedRows.length;
    aggregate.failed += frame.failedRows.length;
    for (const row of frame.failedRows)
      aggregate.errors.push({ index: row.index, error: row.error ?? { kind: 'internal', message: 'iteration failed' } });
  }
  return aggregate;
}

/** A fan-out's shards in collection order: each its result, or its last error. */
function aggregateShards(ctx: PlanContext, loop: LoopState): Aggregate {
  const results: Json[] = [];
  const aggregate: Aggregate = { results, succeeded: 0, failed: 0, errors: [], committedFrames: 0, failedFrames: 0 };
  for (let index = 0; index < (loop.size ?? 0); index += 1) {
    const shard = loop.shards?.[index];
    if (shard?.status === 'COMPLETED') {
      aggregate.succeeded += 1;
      results.push(shard.resultRef ? ctx.env.resolve(shard.resultRef) : (shard.result ?? null));
      continue;
    }
    aggregate.failed += 1;
    results.push(null);
    aggregate.errors.push({ index, error: shard?.error ?? { kind: 'internal', message: `shard ${index} failed` } });
  }
  return aggregate;
}

function frameResults(
  ctx: PlanContext,
  loop: LoopState,
  inline: Json[] | undefined,
  ref: LoopState['frames'][number]['outputRef'],
  index: number,
): Json[] {
  if (inline) return inline;
  if (!ref) return [];
  const value = ctx.env.resolve(ref);
  if (Array.isArray(value)) return value;
  throw new StepFailure({
    kind: 'internal',
    message: `frame ${index} of loop ${loop.loopId} has an output that is not a list of row results`,
    step: loop.step,
  });
}

function iterationsError(step: string, aggregate: Aggregate, total: number): EventError {
  const quoted = aggregate.errors
    .slice(0, QUOTED_ERRORS)
    .map(({ index, error }) => `[${index}] ${error.kind}: ${error.message}`)
    .join('; ');
  const more = aggregate.errors.length > QUOTED_ERRORS ? `; and ${aggregate.errors.length - QUOTED_ERRORS} more` : '';
  return {
    kind: aggregate.errors[0]?.error.kind ?? 'internal',
    message: `${aggregate.failed} of ${total} iterations of loop step ${step} failed and no arc handled it: ${quoted}${more}`,
    step,
  };
}
