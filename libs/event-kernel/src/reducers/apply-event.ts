import type { LedgerEvent } from '../envelope';
import { EventType } from '../event-types';
import type { RerunOrigin } from '../event-payloads';
import type { CommandState, ExecutionState, LoopState, ShardState, StepRun } from './execution-state';
import { liveWork, noteLive } from './live-work';
import { setPath } from './set-path';

export class FoldError extends Error {
  readonly code = 'fold_error';
}

/**
 * The one fold (DESIGN.md s3): the scheduler, the projector and replay all
 * build an execution's state with it. Deterministic: it reads nothing but the
 * state and the event, and it mutates the state it is given (folding thousands
 * of loop events by copying would be quadratic).
 */
export function applyEvent(state: ExecutionState | undefined, event: LedgerEvent): ExecutionState {
  if (event.event_type === EventType.ExecutionStarted) {
    if (state) throw new FoldError(`execution ${event.execution_id} started twice`);
    const started = startState(event);
    liveWork(started);
    return started;
  }
  if (!state) throw new FoldError(`event ${event.event_id} (${event.event_type}) precedes execution.started`);
  applyToState(state, event);
  state.lastEventId = event.event_id;
  state.eventCount += 1;
  return state;
}

export function foldEvents(events: Iterable<LedgerEvent>, seed?: ExecutionState): ExecutionState | undefined {
  let state = seed;
  for (const event of events) state = applyEvent(state, event);
  return state;
}

function startState(event: Extract<LedgerEvent, { event_type: typeof EventType.ExecutionStarted }>): ExecutionState {
  const p = event.payload;
  return {
    executionId: event.execution_id,
    tenantId: event.tenant_id,
    organizationId: event.organization_id,
    path: p.path,
    version: p.version,
    catalogId: p.catalog_id,
    parentExecutionId: p.parent_execution_id ?? null,
    parentCommandId: p.parent_command_id ?? null,
    status: 'RUNNING',
    workload: p.workload,
    ctx: structuredClone(p.seed?.ctx ?? p.workload),
    results: p.seed ? structuredClone(p.seed.results) : {},
    runs: {},
    steps: {},
    pending: {},
    commands: {},
    timers: {},
    loops: {},
    lastCompletedStep: null,
    ...(p.rerun_of ? { rerunOf: rerunOf(p.rerun_of) } : {}),
    startedAt: event.event_time,
    lastEventId: event.event_id,
    eventCount: 1,
  };
}

function rerunOf(origin: RerunOrigin): NonNullable<ExecutionState['rerunOf']> {
  return {
    executionId: origin.execution_id,
    ...(origin.from_step !== undefined ? { fromStep: origin.from_step } : {}),
    ...(origin.as_of_event_id !== undefined ? { asOfEventId: origin.as_of_event_id } : {}),
    ...(origin.as_of_position !== undefined ? { asOfPosition: origin.as_of_position } : {}),
  };
}

function applyToState(state: ExecutionState, event: LedgerEvent): void {
  switch (event.event_type) {
    case EventType.CtxUpdated:
      for (const [key, value] of Object.entries(event.payload.set)) setPath(state.ctx, key, value);
      return;
    case EventType.StepEnter:
      return enterStep(state, event);
    case EventType.StepExit:
      return exitStep(state, event);
    case EventType.CommandIssued: {
      const p = event.payload;
      state.commands[p.command_id] = {
        commandId: p.command_id,
        step: p.step,
        runId: p.run_id,
        kind: p.kind,
        attempt: p.attempt,
        maxAttempts: p.max_attempts,
        status: 'ISSUED',
        issuedAt: event.event_time,
        loopId: p.loop_id,
        iteration: p.iteration,
        ...(p.spec['run_alone'] === true ? { runAlone: true } : {}),
      };
      if (p.loop_id !== undefined && p.iteration !== undefined) {
        const loop = state.loops[p.loop_id];
        if (loop) (loop.shards ??= {})[p.iteration] = { commandId: p.command_id, status: 'RUNNING' };
      }
      const run = state.runs[p.run_id];
      if (run) {
        run.commandIds.push(p.command_id);
        run.attempts = Math.max(run.attempts, p.attempt);
        const summary = state.steps[run.step];
        if (summary && summary.lastRunId === run.runId) summary.attempts = run.attempts;
      }
      return;
    }
    case EventType.CommandClaimed:
      return updateCommand(state, event.command_id, (c) => {
        c.status = event.payload.started ? 'RUNNING' : 'CLAIMED';
        c.workerId = event.payload.worker_id;
        c.leaseUntil = event.payload.lease_until;
      });
    case EventType.CommandStarted:
      return updateCommand(state, event.command_id, (c) => {
        c.status = 'RUNNING';
      });
    case EventType.CommandHeartbeat:
      return updateCommand(state, event.command_id, (c) => {
        c.leaseUntil = event.payload.lease_until;
        if (event.payload.alone === false) delete c.runAlone;
      });
    case EventType.CommandCompleted:
      return updateCommand(state, event.command_id, (c) => {
        c.status = 'COMPLETED';
        c.completedAt = event.event_time;
        endShard(state, c, { result: event.payload.result, resultRef: event.payload.result_ref });
      });
    case EventType.CommandFailed:
      return updateCommand(state, event.command_id, (c) => {
        c.status = 'FAILED';
        c.completedAt = event.event_time;
        c.error = event.payload.error;
        endShard(state, c, { error: event.payload.error });
      });
    case EventType.CommandAbandoned:
      return updateCommand(state, event.command_id, (c) => {
        c.status = 'ABANDONED';
        c.workerId = undefined;
        c.leaseUntil = undefined;
        if (event.payload.worker_lost) c.lost = true;
        endShard(state, c, { error: { kind: 'internal', message: `lease expired (attempt ${c.attempt}): ${event.payload.reason}` } });
      });
    case EventType.CommandReleased:
      return updateCommand(state, event.command_id, (c) => {
        c.status = 'ISSUED';
        c.workerId = undefined;
        c.leaseUntil = undefined;
      });
    case EventType.CommandCancelled:
      return updateCommand(state, event.command_id, (c) => {
        c.status = 'CANCELLED';
        c.completedAt = event.event_time;
      });
    case EventType.RetryScheduled: {
      const p = event.payload;
      state.timers[p.timer_id] = {
        timerId: p.timer_id,
        purpose: 'retry',
        step: p.step,
        runId: p.run_id,
        dueAt: p.due_at,
        fired: false,
        attempt: p.attempt,
      };
      noteLive(state, 'timers', p.timer_id, true);
      return;
    }
    case EventType.TimerScheduled: {
      const p = event.payload;
      state.timers[p.timer_id] = { timerId: p.timer_id, purpose: p.purpose, step: p.step, runId: p.run_id, dueAt: p.due_at, fired: false };
      noteLive(state, 'timers', p.timer_id, true);
      return;
    }
    case EventType.TimerFired: {
      const timer = state.timers[event.payload.timer_id];
      if (timer) timer.fired = true;
      noteLive(state, 'timers', event.payload.timer_id, false);
      return;
    }
    case EventType.LoopStarted: {
      const p = event.payload;
      state.loops[p.loop_id] = {
        loopId: p.loop_id,
        step: p.step,
        runId: p.run_id,
        epoch: p.epoch,
        stageId: p.stage_id,
        mode: p.mode,
        maxInFlight: p.max_in_flight,
        size: p.size,
        collection: p.collection,
        collectionRef: p.collection_ref,
        frameCount: null,
        inFlight: {},
        frames: {},
        succeededRows: 0,
        failedRows: 0,
        status: 'RUNNING',
      };
      const run = state.runs[p.run_id];
      if (run) run.loopId = p.loop_id;
      noteLive(state, 'loops', p.loop_id, true);
      return;
    }
    case EventType.StageOpened:
      return updateLoop(state, event.payload.loop_id, (loop) => {
        loop.frameCount = event.payload.frame_count;
      });
    case EventType.FrameDispatched:
      return updateLoop(state, event.loop_id, (loop) => {
        const p = event.payload;
        loop.inFlight[p.frame_id] = { workerId: p.worker_id, leaseUntil: p.lease_until, attempt: p.attempt };
      });
    case EventType.FrameStarted:
    case EventType.FrameHeartbeat:
      return updateLoop(state, event.loop_id, (loop) => {
        const frame = loop.inFlight[event.payload.frame_id];
        if (frame) frame.leaseUntil = event.payload.lease_until;
      });
    case EventType.FrameAbandoned:
      return updateLoop(state, event.loop_id, (loop) => {
        delete loop.inFlight[event.payload.frame_id];
      });
    case EventType.FrameCommitted:
      return updateLoop(state, event.loop_id, (loop) => {
        const p = event.payload;
        delete loop.inFlight[p.frame_id];
        if (loop.frames[p.frame_index]) return; // a frame commits once (the control plane rejects a second)
        loop.frames[p.frame_index] = {
          frameIndex: p.frame_index,
          status: 'COMMITTED',
          rowCount: p.row_count,
          failedRows: p.failed_rows,
          results: p.results,
          outputRef: p.output_ref,
        };
        loop.failedRows += p.failed_rows.length;
        loop.succeededRows += p.row_count - p.failed_rows.length;
      });
    case EventType.FrameFailed:
      return updateLoop(state, event.loop_id, (loop) => {
        const p = event.payload;
        delete loop.inFlight[p.frame_id];
        if (loop.frames[p.frame_index]) return;
        loop.frames[p.frame_index] = { frameIndex: p.frame_index, status: 'FAILED', rowCount: 0, failedRows: [], error: p.error };
      });
    case EventType.LoopDone:
      noteLive(state, 'loops', event.payload.loop_id, false);
      return updateLoop(state, event.payload.loop_id, (loop) => {
        loop.status = 'DONE';
        loop.doneStatus = event.payload.status;
        loop.succeededRows = event.payload.succeeded;
        loop.failedRows = event.payload.failed;
        if (loop.size === null) loop.size = event.payload.total;
      });
    case EventType.ExecutionCompleted:
      state.status = 'COMPLETED';
      state.result = event.payload.result;
      state.resultRef = event.payload.result_ref;
      state.completedAt = event.event_time;
      return;
    case EventType.ExecutionFailed:
      state.status = 'FAILED';
      state.error = event.payload.error;
      state.completedAt = event.event_time;
      return;
    case EventType.ExecutionCancelled:
      state.status = 'CANCELLED';
      state.completedAt = event.event_time;
      return;
    case EventType.SignalReceived: {
      const signals = (state.signals ??= {});
      (signals[event.payload.name] ??= []).push({ eventId: event.event_id, payload: event.payload.payload, receivedAt: event.event_time });
      return;
    }
    case EventType.ScheduleFired: {
      const p = event.payload;
      state.schedule = { scheduleId: p.schedule_id, fireTime: p.fire_time, ...(p.manual ? { manual: true } : {}) };
      return;
    }
    case EventType.ExecutionStarted:
      throw new FoldError(`execution ${event.execution_id} started twice`);
    case EventType.CallPartial:
      return updateCommand(state, event.command_id, (c) => {
        const run = state.runs[c.runId];
        if (run && event.payload.chunk_index >= (run.streamed?.chunks ?? 0)) {
          run.streamed = { chunks: event.payload.chunk_index + 1, commandId: c.commandId };
        }
      });
    case EventType.CallDone:
    case EventType.CallError:
    case EventType.StageClosed:
    case EventType.AdminAction:
      return; // recorded for audit and metrics; they change no routing state
    default: {
      const unknown: never = event;
      throw new FoldError(`no fold rule for ${(unknown as LedgerEvent).event_type}`);
    }
  }
}

function enterStep(state: ExecutionState, event: Extract<LedgerEvent, { event_type: typeof EventType.StepEnter }>): void {
  const p = event.payload;
  const run: StepRun = {
    runId: p.run_id,
    step: p.step,
    activation: p.activation,
    status: 'RUNNING',
    arrivals: p.arrivals ?? [],
    commandIds: [],
    attempts: 0,
    ...(p.chunk ? { chunk: p.chunk } : {}),
    startedAt: event.event_time,
  };
  state.runs[run.runId] = run;
  noteLive(state, 'runs', run.runId, true);
  const previous = state.steps[p.step];
  state.steps[p.step] = {
    step: p.step,
    status: 'RUNNING',
    runs: (previous?.runs ?? 0) + 1,
    attempts: 0,
    lastRunId: run.runId,
    startedAt: event.event_time,
  };
  const waiting = state.pending[p.step];
  if (waiting) {
    const consumed = new Set(run.arrivals);
    const left = waiting.filter((source) => !consumed.has(source));
    if (left.length) state.pending[p.step] = left;
    else delete state.pending[p.step];
  }
}

function exitStep(state: ExecutionState, event: Extract<LedgerEvent, { event_type: typeof EventType.StepExit }>): void {
  const p = event.payload;
  const run = state.runs[p.run_id];
  if (!run) throw new FoldError(`step.exit for unknown run ${p.run_id}`);
  run.status = p.status;
  noteLive(state, 'runs', run.runId, false);
  run.completedAt = event.event_time;
  run.result = p.result;
  run.resultRef = p.result_ref;
  run.error = p.error;
  const summary = state.steps[p.step];
  if (summary && summary.lastRunId === run.runId) {
    summary.status = p.status;
    summary.completedAt = event.event_time;
  }
  if (p.status === 'COMPLETED') {
    state.results[p.step] = p.result_ref ? { ref: p.result_ref } : { value: p.result ?? null };
    state.lastCompletedStep = p.step;
  }
  for (const target of p.next ?? []) (state.pending[target] ??= []).push(run.runId);
  if (p.signal) consumeSignal(state, p.signal);
}

/** A `wait` took this signal: it leaves the pending ones (each is consumed once). */
function consumeSignal(state: ExecutionState, signal: { name: string; event_id: string }): void {
  const signals = state.signals;
  const pending = signals?.[signal.name];
  if (!signals || !pending) return;
  const left = pending.filter((candidate) => candidate.eventId !== signal.event_id);
  if (left.length > 0) signals[signal.name] = left;
  else delete signals[signal.name];
}

/**
 * A fan-out shard's command ended (DSL.md s4.2): the shard completes, or
 * counts as failed once its command used the shard's last run (`attempt`
 * reached `max_attempts`: 1 + max_shard_retries); before that it is RETRYING
 * and the planner issues its next command. A superseded command changes nothing.
 */
function endShard(state: ExecutionState, command: CommandState, end: Pick<ShardState, 'result' | 'resultRef' | 'error'>): void {
  const loop = command.loopId === undefined ? undefined : state.loops[command.loopId];
  const shard = command.iteration === undefined ? undefined : loop?.shards?.[command.iteration];
  if (!loop || !shard || shard.commandId !== command.commandId || shard.status !== 'RUNNING') return;
  if (end.error === undefined) {
    shard.status = 'COMPLETED';
    if (end.resultRef) shard.resultRef = end.resultRef;
    else shard.result = end.result ?? null;
    loop.succeededRows += 1;
    return;
  }
  shard.error = end.error;
  shard.status = command.attempt >= command.maxAttempts ? 'FAILED' : 'RETRYING';
  if (shard.status === 'FAILED') loop.failedRows += 1;
}

function updateCommand(state: ExecutionState, commandId: string | null, change: (command: CommandState) => void): void {
  const command = commandId ? state.commands[commandId] : undefined;
  if (!command) throw new FoldError(`event for unknown command ${commandId}`);
  change(command);
}

function updateLoop(state: ExecutionState, loopId: string | null, change: (loop: LoopState) => void): void {
  const loop = loopId ? state.loops[loopId] : undefined;
  if (!loop) throw new FoldError(`event for unknown loop ${loopId}`);
  change(loop);
}
