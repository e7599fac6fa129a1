import { DEFAULT_PARALLEL_MAX_IN_FLIGHT } from '../parse/normalise-loop';
import { EventType, type Json } from '@noetl/event-kernel';
import type { LoopSpec, Step } from '../model';
import { toPlainJson } from '../scope';
import { closeLoop } from './close-loop';
import { issueShards } from './fanout-shards';
import { framePolicyJson, maxRowsOf } from './frame-policy';
import { StepFailure, type PlanContext } from './plan-context';

/**
 * Opens a loop epoch for a step run (DSL.md s4, DESIGN.md "Loops are stages
 * of frames"): renders `loop.in` to a list (a JSON string holding a list is
 * accepted), renders `max_in_flight` to a positive integer, then
 * `loop.started` (epoch = earlier epochs of the step + 1, new loop id every
 * time) and `stage.opened` with the frame count (`ceil(size / max_rows)`;
 * null for a cursor loop). An empty collection closes the loop at once.
 * Frames are minted and claimed elsewhere (scheduler and control plane). A
 * fan-out's stage has no frames: it issues a command per item instead.
 */
export function openLoop(ctx: PlanContext, step: Step, runId: string): void {
  const loop = step.loop;
  if (!loop) throw new StepFailure({ kind: 'internal', message: `step ${step.name} has no loop`, step: step.name });
  const collection = loop.source.kind === 'collection' ? renderCollection(ctx, step, loop.source.in) : undefined;
  const size = collection ? collection.length : null;
  const limit = ctx.env.limits?.loopItems;
  if (size !== null && limit !== undefined && size > limit) {
    throw new StepFailure({
      kind: 'limit',
      message: `the loop of step ${step.name} has ${size} items; the limit is ${limit} (NOETL_MAX_LOOP_ITEMS)`,
      step: step.name,
    });
  }
  const maxInFlight = renderMaxInFlight(ctx, step, loop, size);
  const loopId = ctx.newId();
  const stageId = ctx.newId();
  const epoch = Object.values(ctx.state.loops).filter((l) => l.step === step.name).length + 1;
  ctx.emit({
    type: EventType.LoopStarted,
    step: step.name,
    loopId,
    stageId,
    payload: {
      loop_id: loopId,
      step: step.name,
      run_id: runId,
      epoch,
      size,
      ...(collection ? { collection } : {}),
      mode: loop.mode,
      max_in_flight: maxInFlight,
      stage_id: stageId,
    },
  });
  ctx.emit({
    type: EventType.StageOpened,
    step: step.name,
    loopId,
    stageId,
    payload: {
      stage_id: stageId,
      loop_id: loopId,
      step: step.name,
      kind: loop.fanout ? 'fanout' : 'loop',
      frame_count: size === null ? null : loop.fanout ? 0 : Math.ceil(size / maxRowsOf(loop.frame)),
      frame_policy: framePolicyJson(loop.frame),
    },
  });
  if (size === 0) closeLoop(ctx, loopId);
  else if (loop.fanout && size !== null) issueShards(ctx, step, runId, loopId, size, maxInFlight);
}

function renderCollection(ctx: PlanContext, step: Step, source: Json): Json[] {
  let value = toPlainJson(ctx.env.renderer.renderValue(source, ctx.scope(undefined, step)));
  if (typeof value === 'string') value = parseJsonList(value) ?? value;
  if (Array.isArray(value)) return value;
  const expression = typeof source === 'string' ? source : undefined;
  throw new StepFailure({
    kind: 'template',
    message: `loop.in of step ${step.name} must yield a list, got ${describe(value)}${expression ? ` from "${expression}"` : ''}`,
    step: step.name,
    ...(expression ? { expression } : {}),
  });
}

function parseJsonList(text: string): Json[] | undefined {
  try {
    const parsed = JSON.parse(text) as Json;
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** `max_in_flight` rendered; absent, a fan-out's every item (at least one), a parallel loop's default, else one. */
function renderMaxInFlight(ctx: PlanContext, step: Step, loop: LoopSpec, size: number | null): number {
  if (loop.maxInFlight === undefined)
    return loop.fanout ? Math.max(1, size ?? 1) : loop.mode === 'parallel' ? DEFAULT_PARALLEL_MAX_IN_FLIGHT : 1;
  const raw =
    typeof loop.maxInFlight === 'number'
      ? loop.maxInFlight
      : toPlainJson(ctx.env.renderer.renderValue(loop.maxInFlight, ctx.scope(undefined, step)));
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  throw new StepFailure({
    kind: 'template',
    message: `max_in_flight of step ${step.name} must be a positive integer, got ${JSON.stringify(raw)}`,
    step: step.name,
    ...(typeof loop.maxInFlight === 'string' ? { expression: loop.maxInFlight } : {}),
  });
}

function describe(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `a string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value)}`;
  return `a ${typeof value} (${String(value)})`;
}
