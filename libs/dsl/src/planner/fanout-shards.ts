import { EventType, type ExecutionState, type JsonObject, type LedgerEvent, type LoopState } from '@noetl/event-kernel';
import type { Step } from '../model';
import { closeLoop, isLoopFinished } from './close-loop';
import { commandKind } from './issue-command';
import { loopBodySpec } from './loop-body-spec';
import type { PlanContext } from './plan-context';

type ShardEndEvent = Extract<
  LedgerEvent,
  { event_type: typeof EventType.CommandCompleted | typeof EventType.CommandFailed | typeof EventType.CommandAbandoned }
>;

/** What every command of one fan-out shares: the loop body and the tool kind. */
interface ShardWork {
  step: string;
  runId: string;
  loopId: string;
  kind: string;
  spec: JsonObject;
}

/**
 * A fan-out loop (DSL.md s4.2) issues one independent command per item, for
 * any worker to claim: `command.issued` with the loop id and the item's
 * collection index (the worker reads the item from the loop's collection
 * when it claims). At most `maxInFlight` shards are issued and not yet
 * ended (every item at once when the playbook sets no max_in_flight); each
 * shard's end issues the next item. A shard runs at most 1 +
 * max_shard_retries times: `max_attempts` of its commands.
 */
export function issueShards(ctx: PlanContext, step: Step, runId: string, loopId: string, size: number, maxInFlight: number): void {
  const work = shardWork(ctx, step, runId, loopId);
  for (let index = 0; index < Math.min(size, maxInFlight); index += 1) issueShard(ctx, work, index, 1, maxAttemptsOf(step));
}

function maxAttemptsOf(step: Step): number {
  return 1 + (step.loop?.maxShardRetries ?? 0);
}

/** Whether every item has had a shard issued: items are issued in order, so the last one's is the last. O(1), as a shard end must be. */
function allIssued(loop: LoopState): boolean {
  return loop.size === null || loop.size === 0 || loop.shards?.[loop.size - 1] !== undefined;
}

/**
 * The item whose shard a terminal shard end makes room for, if any. Until
 * every item is issued, max_in_flight shards are open: so the shards issued
 * are the terminal ones (this one counted, by the fold) plus the open ones
 * before this end. Counted, not listed: a walk over the shards per end would
 * make a large fan-out quadratic. A shard already issued (a ledger from
 * before max_in_flight was honoured issued them all) is never issued again.
 */
function nextItem(loop: LoopState): number | undefined {
  const next = loop.succeededRows + loop.failedRows - 1 + loop.maxInFlight;
  return next < (loop.size ?? 0) && loop.shards?.[next] === undefined ? next : undefined;
}

/** A fan-out shard's command ended: completed, failed, or its lease ran out. */
export function isShardEnd(state: ExecutionState, event: LedgerEvent): event is ShardEndEvent {
  if (
    event.event_type !== EventType.CommandCompleted &&
    event.event_type !== EventType.CommandFailed &&
    event.event_type !== EventType.CommandAbandoned
  ) {
    return false;
  }
  const command = event.command_id === null ? undefined : state.commands[event.command_id];
  return command?.loopId !== undefined && command.iteration !== undefined;
}

/**
 * A shard completed without ctx writes and its loop goes on: nothing to
 * decide. Checked before a planning pass copies the state, which for a
 * fan-out of many shards would cost O(shards) per shard.
 */
export function isQuietShardEnd(state: ExecutionState, event: LedgerEvent): boolean {
  if (!isShardEnd(state, event) || event.event_type !== EventType.CommandCompleted) return false;
  const loopId = event.command_id === null ? undefined : state.commands[event.command_id]?.loopId;
  const loop = loopId === undefined ? undefined : state.loops[loopId];
  if (!loop || loop.status !== 'RUNNING') return true;
  return Object.keys(event.payload.ctx ?? {}).length === 0 && !isLoopFinished(loop) && allIssued(loop);
}

/**
 * A shard's command ended (the fold already moved the shard): its `ctx.*`
 * writes are recorded; a shard with runs left is issued again as a new
 * command (attempt + 1, same item); when every shard is terminal the loop
 * closes, exactly once (`loop.done`), with `fanin` in scope of its arcs.
 */
export function onShardEnd(ctx: PlanContext, event: ShardEndEvent): void {
  const command = event.command_id === null ? undefined : ctx.state.commands[event.command_id];
  const loop = command?.loopId === undefined ? undefined : ctx.state.loops[command.loopId];
  if (!command || command.iteration === undefined || !loop || loop.status !== 'RUNNING' || ctx.state.runs[loop.runId]?.status !== 'RUNNING')
    return;
  const shard = loop.shards?.[command.iteration];
  if (!shard || shard.commandId !== command.commandId) return;
  const set = event.event_type === EventType.CommandAbandoned ? undefined : event.payload.ctx;
  if (set && Object.keys(set).length > 0) {
    ctx.emit({ type: EventType.CtxUpdated, step: loop.step, loopId: loop.loopId, payload: { set, step: loop.step } });
  }
  if (shard.status === 'RETRYING') {
    issueShard(
      ctx,
      shardWork(ctx, ctx.step(loop.step), loop.runId, loop.loopId),
      command.iteration,
      command.attempt + 1,
      command.maxAttempts,
    );
  } else {
    // This shard is done: its place goes to the next item (max_in_flight).
    const next = nextItem(loop);
    if (next !== undefined) {
      const step = ctx.step(loop.step);
      issueShard(ctx, shardWork(ctx, step, loop.runId, loop.loopId), next, 1, maxAttemptsOf(step));
    }
  }
  const current = ctx.state.loops[loop.loopId];
  if (current && isLoopFinished(current)) closeLoop(ctx, loop.loopId);
}

function shardWork(ctx: PlanContext, step: Step, runId: string, loopId: string): ShardWork {
  return { step: step.name, runId, loopId, kind: commandKind(ctx, step), spec: loopBodySpec(ctx.playbook, step) };
}

function issueShard(ctx: PlanContext, work: ShardWork, index: number, attempt: number, maxAttempts: number): void {
  const commandId = ctx.newId();
  ctx.emit({
    type: EventType.CommandIssued,
    step: work.step,
    commandId,
    loopId: work.loopId,
    payload: {
      command_id: commandId,
      step: work.step,
      run_id: work.runId,
      kind: work.kind,
      attempt,
      max_attempts: maxAttempts,
      spec: work.spec,
      loop_id: work.loopId,
      iteration: index,
    },
  });
}
