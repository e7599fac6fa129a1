import { EventType, type ChunkOrigin, type LedgerEvent } from '@noetl/event-kernel';
import { chunkView } from '../scope';
import { hasKeys, renderSet } from './apply-set';
import { openRunOf } from './command-run';
import { enterStep } from './enter-step';
import { evaluateArcs } from './evaluate-arcs';
import { guardStep } from './fail-step';
import type { PlanContext } from './plan-context';

type CallPartialEvent = Extract<LedgerEvent, { event_type: typeof EventType.CallPartial }>;

/**
 * A streaming step's command emitted a chunk (DSL.md s3 `stream`): its
 * `on: call.partial` arcs are evaluated with `chunk` in scope (without its
 * rows: the scheduler never loads a chunk, only the call that gets it does), each fired
 * arc's ctx `set` is recorded, and each target starts a run of its own for
 * this chunk. The step's other arcs wait for its outcome as always. A chunk
 * a re-run of the command streams again (its index was streamed before) is
 * not routed twice.
 */
export function onCallPartial(ctx: PlanContext, event: CallPartialEvent): void {
  const open = openRunOf(ctx, event.command_id);
  if (!open) return;
  const { command, run } = open;
  const p = event.payload;
  if (run.streamed?.commandId !== command.commandId || run.streamed.chunks !== p.chunk_index + 1) return;
  const step = ctx.step(run.step);
  if (!step.next.arcs.some((arc) => arc.on === EventType.CallPartial)) return;
  const origin: ChunkOrigin = {
    step: run.step,
    run_id: run.runId,
    command_id: command.commandId,
    chunk_index: p.chunk_index,
    has_more: p.has_more,
    row_count: p.row_count,
    rows_ref: p.rows_ref,
  };
  guardStep(ctx, run.runId, run.step, () => {
    const scope = ctx.scope({
      chunk: chunkView(origin),
      event: { name: EventType.CallPartial, step: run.step, payload: p },
    });
    const fired = evaluateArcs(ctx.env.renderer, step.next, scope, EventType.CallPartial);
    const sets = fired.map((arc) => renderSet(ctx, arc.set, scope).ctx);
    for (const set of sets) if (hasKeys(set)) ctx.emit({ type: EventType.CtxUpdated, step: run.step, payload: { set, step: run.step } });
    for (const arc of fired) enterStep(ctx, arc.step, [], origin);
  });
}
