import { workPool } from '@noetl/dsl';
import { workOf } from '../bus/offers';
import { EventType, type ExecutionState, type IdGenerator, type LedgerEvent, type StepRun } from '@noetl/event-kernel';
import type {
  CommandRepository,
  ExecutionRepository,
  FrameRepository,
  IssuedLease,
  Queryable,
  StageRepository,
  TenantScope,
  TimerRepository,
} from '@noetl/storage';
import { insertStage } from './stage-rows';

/** The derived tables the scheduler keeps in step with its events. */
export interface DerivedRows {
  commandRows: CommandRepository;
  timerRows: TimerRepository;
  stageRows: StageRepository;
  frameRows: FrameRepository;
}

/** The tables a planned or reported event writes rows to, and the execution row: what the roles' services pick their repositories from. */
export interface EventRows extends DerivedRows {
  executionRows: ExecutionRepository;
}

/** What materializing needs besides the event: the tenancy, ids, the tables, and what a loop step's body needs. */
export interface MaterializeWorld {
  scope: TenantScope;
  ids: IdGenerator;
  rows: DerivedRows;
  /** The tool kinds a loop step's body runs, its worker pool (null: none) and the credentials it names (null: any, a name is a template). */
  loopBody: (step: string) => Promise<LoopBody>;
  /** The lease of a command claimed as it is issued (eager dispatch): its row starts RUNNING and it is offered to nobody. */
  leaseOf?: (commandId: string) => IssuedLease | undefined;
}

/** What a loop step's stage keeps of its body. */
export interface LoopBody {
  tools: string[];
  pool: string | null;
  credentials: string[] | null;
}

/** What a planned batch asks of the world once its transaction committed. */
export interface Effects {
  /** Commands to offer to workers, with the tool kinds each needs. */
  work: { command_id: string; execution_id: string; run_id: string; kind: string; kinds: string[]; pool: string | null; alone?: true }[];
  /** New timers, to fire on time rather than at the next sweep. */
  timers: ArmedTimer[];
  /** Commands cancelled: a `playbook` command's child is cancelled too. */
  cancelledCommands: string[];
  /** Stages opened: offer their frames to workers, one message per frame slot. */
  stages: { stage_id: string; execution_id: string; run_id: string | undefined; slots: number; kinds: string[]; pool: string | null }[];
  /** Step runs that ended, when traces are on: their spans are recorded. */
  endedRuns: { executionId: string; run: StepRun }[];
}

/** A durable timer row just written. */
export interface ArmedTimer {
  timerId: string;
  dueAt: Date;
}

export function noEffects(): Effects {
  return { work: [], timers: [], cancelledCommands: [], stages: [], endedRuns: [] };
}

/**
 * Keeps the derived tables in step with the events the scheduler plans
 * (DESIGN.md s4 step 3): the command row of a `command.issued`, the timer row
 * of a delay, a cancelled command's row, a stage and its frames. Same
 * transaction as the events; `state` is the state after `event`.
 */
export async function materialize(
  q: Queryable,
  world: MaterializeWorld,
  event: LedgerEvent,
  state: ExecutionState,
  effects: Effects,
): Promise<void> {
  const { scope, rows } = world;
  switch (event.event_type) {
    case EventType.CommandIssued: {
      const p = event.payload;
      const lease = world.leaseOf?.(p.command_id);
      await rows.commandRows.insertIssued(
        q,
        scope,
        {
          command_id: p.command_id,
          execution_id: event.execution_id,
          step: p.step,
          run_id: p.run_id,
          kind: p.kind,
          attempt: p.attempt,
          max_attempts: p.max_attempts,
          spec: p.spec,
          issued_event_id: event.event_id,
          loop_id: p.loop_id ?? null,
          iteration: p.iteration ?? null,
          pool: workPool(p.spec),
        },
        lease,
      );
      if (!lease)
        effects.work.push({
          command_id: p.command_id,
          execution_id: event.execution_id,
          run_id: p.run_id,
          kind: p.kind,
          ...workOf(p.spec),
        });
      return;
    }
    case EventType.RetryScheduled:
    case EventType.TimerScheduled: {
      const p = event.payload;
      const purpose = event.event_type === EventType.RetryScheduled ? 'retry' : event.payload.purpose;
      await rows.timerRows.insert(q, scope, {
        timerId: p.timer_id,
        executionId: event.execution_id,
        purpose,
        dueAt: p.due_at,
        payload: p,
        createdEventId: event.event_id,
      });
      effects.timers.push({ timerId: p.timer_id, dueAt: new Date(p.due_at) });
      return;
    }
    case EventType.CommandCancelled: {
      if (!event.command_id) return;
      await rows.commandRows.end(q, event.command_id, 'CANCELLED', event.event_id);
      effects.cancelledCommands.push(event.command_id);
      return;
    }
    case EventType.StageOpened: {
      const p = event.payload;
      const body = await world.loopBody(p.step);
      const slots = await insertStage(q, world, event.execution_id, event.event_id, { ...p, ...body }, state.loops[p.loop_id]);
      const runId = state.loops[p.loop_id]?.runId;
      if (slots > 0)
        effects.stages.push({
          stage_id: p.stage_id,
          execution_id: event.execution_id,
          run_id: runId,
          slots,
          kinds: body.tools,
          pool: body.pool,
        });
      return;
    }
    case EventType.StageClosed:
      await rows.stageRows.close(q, event.payload.stage_id, event.event_id);
      return;
    case EventType.ExecutionCompleted:
    case EventType.ExecutionFailed:
    case EventType.ExecutionCancelled:
      // Nothing runs after the end: its open frames and stages go in bulk, not one event (or one statement) per frame.
      // An execution that never ran a loop has no stage or frame to close.
      if (Object.keys(state.loops).length > 0) {
        await rows.frameRows.cancelOpenOf(q, event.execution_id, event.event_id);
        await rows.stageRows.closeOpenOf(q, event.execution_id, event.event_id);
      }
      return;
    default:
      return;
  }
}
