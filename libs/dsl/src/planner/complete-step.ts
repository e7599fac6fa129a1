import { EventType, type EventError, type Json, type PayloadRef } from '@noetl/event-kernel';
import { chunkView, stepResultView } from '../scope';
import { hasKeys, renderSet, writeStepKeys, type RenderedSet } from './apply-set';
import { evaluateArcs } from './evaluate-arcs';
import { guardStep } from './fail-step';
import { StepFailure, type PlanContext, type TriggerView } from './plan-context';

/** How a step run ended well, as the rule that saw it end describes it. */
export interface Completion {
  /** The result as templates see it (resolved when it came by reference). */
  value: Json;
  /** The payload-store ref of the result, kept on `step.exit` while the result is unchanged. */
  ref?: PayloadRef;
  /** The event that ended the step: `{{ event.name }}`, `{{ event.payload }}`. */
  trigger: TriggerView;
  /** `{{ output }}`; default `{status: 'ok', data: <result>}`. */
  output?: unknown;
  /** Loop steps: `{{ fanin }}` (status, done, failed, total). */
  fanin?: Record<string, unknown>;
  /** Loop steps with failed iterations: the step fails with this when no arc fires (DSL.md s4). */
  unrouted?: EventError;
  /** A `wait` step: the signal it consumes, recorded on its `step.exit`. */
  signal?: { name: string; event_id: string };
}

/**
 * A step run succeeded (DSL.md s2.1, RESULT_SHAPES s8): its `set` is applied
 * (ctx writes as one `ctx.updated`, `step.*` into the result) BEFORE the arcs
 * are evaluated; then `step.exit COMPLETED` names the fired targets, then
 * each fired arc's `set` is recorded. Everything that can fail (templates) is
 * evaluated before `step.exit`, so a failure leaves a FAILED exit, never a
 * COMPLETED one followed by a failure. The targets are entered by the fan-in
 * rule (release-arrivals.ts).
 */
export function completeStep(ctx: PlanContext, runId: string, completion: Completion): void {
  const run = ctx.state.runs[runId];
  if (!run || run.status !== 'RUNNING' || !ctx.running) return;
  guardStep(ctx, runId, run.step, () => route(ctx, runId, run.step, completion));
}

function route(ctx: PlanContext, runId: string, stepName: string, completion: Completion): void {
  const step = ctx.step(stepName);
  const chunk = ctx.state.runs[runId]?.chunk;
  let result = completion.value;
  let ref = completion.ref;
  const names = (value: Json): Record<string, unknown> => ({
    ...(chunk ? { chunk: chunkView(chunk) } : {}),
    [step.name]: stepResultView(value, { loop: step.loop !== undefined }),
    output: completion.output ?? { status: 'ok', data: value },
    event: { name: completion.trigger.name, step: step.name, payload: completion.trigger.payload },
    ...(completion.fanin ? { fanin: completion.fanin } : {}),
  });

  if (step.set.length > 0) {
    const own = renderSet(ctx, step.set, ctx.scope(names(result), step));
    if (hasKeys(own.ctx)) ctx.emit({ type: EventType.CtxUpdated, step: step.name, payload: { set: own.ctx, step: step.name } });
    if (own.step.length > 0) {
      result = writeStepKeys(result, own.step);
      ref = undefined;
    }
  }

  const scope = ctx.scope(names(result), step);
  const fired = evaluateArcs(ctx.env.renderer, step.next, scope);
  if (fired.length === 0 && completion.unrouted) throw new StepFailure(completion.unrouted);
  const arcSets: RenderedSet[] = fired.map((arc) => renderSet(ctx, arc.set, scope));
  for (const arcSet of arcSets) {
    if (arcSet.step.length === 0) continue;
    result = writeStepKeys(result, arcSet.step);
    ref = undefined;
  }

  ctx.emit({
    type: EventType.StepExit,
    step: step.name,
    status: 'COMPLETED',
    payload: {
      step: step.name,
      run_id: runId,
      status: 'COMPLETED',
      ...(ref ? { result_ref: ref } : { result }),
      next: [...new Set(fired.map((arc) => arc.step))],
      ...(completion.signal ? { signal: completion.signal } : {}),
    },
  });
  for (const arcSet of arcSets) {
    if (hasKeys(arcSet.ctx)) ctx.emit({ type: EventType.CtxUpdated, step: step.name, payload: { set: arcSet.ctx, step: step.name } });
  }
}
