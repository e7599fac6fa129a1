import {
  applyEvent,
  buildEvent,
  canonicalChecksum,
  EventType,
  sealEvent,
  type CommandState,
  type EventDraft,
  type EventError,
  type EventPayloads,
  type EventTypeName,
  type ExecutionState,
  type Json,
  type JsonObject,
  type LedgerEvent,
  type PayloadRef,
} from '@noetl/event-kernel';
import { ExpressionEngine } from '../../expressions';
import type { Playbook } from '../../model';
import { parsePlaybook } from '../../parse';
import { maxRowsOf } from '../frame-policy';
import { plan } from '../plan';
import type { PlannerEnv } from '../plan-context';
import { seededRandom } from '../../testing/seeded-random';

export { seededRandom };

/** A playbook from YAML that must be valid. */
export function playbookOf(yaml: string): Playbook {
  const parsed = parsePlaybook(yaml);
  if (!parsed.playbook) throw new Error(parsed.problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
  return parsed.playbook;
}

/** A playbook made of `workflow` (YAML list text) and optional top-level `extra` YAML. */
export function workflow(steps: string, extra = ''): Playbook {
  return playbookOf(`apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: t}\n${extra}\nworkflow:\n${steps}`);
}

export interface HarnessOptions {
  workload?: JsonObject;
  random?: () => number;
  start?: Date;
  parentExecutionId?: string;
  /** Start as a rerun: its origin and the state it copies (`execution.started`'s `rerun_of` and `seed`). */
  rerun?: Pick<EventPayloads['execution.started'], 'rerun_of' | 'seed'>;
}

/**
 * Drives the planner like the scheduler does: every appended event is sealed,
 * folded with `applyEvent`, handed to `plan`, and the decisions are appended
 * in turn. Tests play the workers (complete, fail, abandon commands; commit
 * frames) and the timer sweep.
 */
export class PlannerHarness {
  readonly executionId = '7000';
  readonly events: LedgerEvent[] = [];
  readonly payloads = new Map<string, Json>();
  /** Decisions per trigger event id, as `plan` returned them. */
  readonly batches = new Map<string, EventDraft<EventTypeName>[]>();
  state!: ExecutionState;
  now: Date;
  private nextEventId = 100000;
  private nextId = 1;
  readonly expressions: ExpressionEngine;
  readonly env: PlannerEnv;

  constructor(
    readonly playbook: Playbook,
    private readonly options: HarnessOptions = {},
  ) {
    this.now = options.start ?? new Date('2025-01-01T00:00:00.000Z');
    this.expressions = new ExpressionEngine({ now: () => this.now, uuid: () => '00000000-0000-4000-8000-000000000000' });
    const clock = (): Date => this.now;
    this.env = {
      get now() {
        return clock();
      },
      newId: () => String(this.nextId++),
      random: options.random ?? seededRandom(42),
      renderer: this.expressions,
      resolve: (ref) => {
        const value = this.payloads.get(ref.sha256);
        if (value === undefined) throw new Error(`payload ${ref.sha256} not preloaded`);
        return value;
      },
    };
  }

  start(workload: JsonObject = this.options.workload ?? this.playbook.workload): this {
    this.append({
      type: EventType.ExecutionStarted,
      executionId: this.executionId,
      payload: {
        path: this.playbook.path,
        version: 1,
        catalog_id: '1',
        workload,
        ...(this.options.parentExecutionId ? { parent_execution_id: this.options.parentExecutionId } : {}),
        ...this.options.rerun,
      },
    });
    return this;
  }

  /** Appends an event (and, recursively, the planner's decisions). Returns the sealed event. */
  append<T extends EventTypeName>(draft: EventDraft<T>): LedgerEvent {
    const event = sealEvent(
      buildEvent(draft, {
        ids: { next: () => String(this.nextEventId++) },
        now: () => this.now,
        producer: 'test',
        tenantId: 't1',
        organizationId: 'o1',
      }),
      this.events.length + 1,
      this.now,
    ) as LedgerEvent;
    this.events.push(event);
    this.state = applyEvent(this.state, event);
    const decisions = plan(this.playbook, this.state, event, this.env);
    for (const staged of decisions.flatMap((decision) => decision.staged ?? []))
      this.payloads.set(staged.ref.sha256, JSON.parse(staged.body) as Json);
    this.batches.set(event.event_id, decisions);
    for (const decision of decisions) this.append(decision);
    return event;
  }

  /** Stores a value in the fake payload store and returns its ref. */
  ref(value: Json): PayloadRef {
    const sha256 = canonicalChecksum(value);
    this.payloads.set(sha256, value);
    return { sha256, media_type: 'application/json', bytes: JSON.stringify(value).length };
  }

  // ---- workers -------------------------------------------------------------------------------

  /** The open (not terminal) command of a step; fails the test when there is none or several. */
  command(step: string): CommandState {
    const open = this.openCommands().filter((c) => c.step === step);
    if (open.length !== 1) throw new Error(`expected one open command for ${step}, got ${open.length}`);
    return open[0]!;
  }

  openCommands(): CommandState[] {
    return Object.values(this.state.commands).filter((c) => ['ISSUED', 'CLAIMED', 'RUNNING'].includes(c.status));
  }

  complete(step: string, result: Json = {}, extra: Partial<EventPayloads['command.completed']> = {}): LedgerEvent {
    const command = this.command(step);
    return this.append({
      type: EventType.CommandCompleted,
      executionId: this.executionId,
      commandId: command.commandId,
      step,
      payload: { result, ...extra },
    });
  }

  fail(step: string, error: EventError, extra: Partial<EventPayloads['command.failed']> = {}): LedgerEvent {
    const command = this.command(step);
    return this.append({
      type: EventType.CommandFailed,
      executionId: this.executionId,
      commandId: command.commandId,
      step,
      payload: { error, ...extra },
    });
  }

  /** The reaper's abandonment of the step's open command; `workerLost`: its lease ran out while its worker ran it. */
  abandon(step: string, options: { workerLost?: boolean } = {}): LedgerEvent {
    const command = this.command(step);
    return this.append({
      type: EventType.CommandAbandoned,
      executionId: this.executionId,
      commandId: command.commandId,
      step,
      payload: { attempt: command.attempt, reason: 'lease expired', ...(options.workerLost ? { worker_lost: true } : {}) },
    });
  }

  /** The open command of item `index` of a step's fan-out (DSL.md s4.2). */
  shard(step: string, index: number): CommandState {
    const open = this.openCommands().filter((c) => c.step === step && c.iteration === index);
    if (open.length !== 1) throw new Error(`expected one open command for shard ${index} of ${step}, got ${open.length}`);
    return open[0]!;
  }

  /** Ends the open command of shard `index`: completed with `result`, or failed with `{error}`, or abandoned (`'abandon'`). */
  endShard(step: string, index: number, outcome: Json | { error: EventError } | 'abandon', extra: { ctx?: JsonObject } = {}): LedgerEvent {
    const command = this.shard(step, index);
    const where = { executionId: this.executionId, commandId: command.commandId, step, loopId: command.loopId ?? null };
    if (outcome === 'abandon') {
      return this.append({ ...where, type: EventType.CommandAbandoned, payload: { attempt: command.attempt, reason: 'lease expired' } });
    }
    if (isRowError(outcome)) return this.append({ ...where, type: EventType.CommandFailed, payload: { error: outcome.error, ...extra } });
    return this.append({ ...where, type: EventType.CommandCompleted, payload: { result: outcome, ...extra } });
  }

  /** A streaming step's open command reports chunk `index` (its rows go to the fake payload store). */
  partial(step: string, index: number, rows: Json[], hasMore: boolean): LedgerEvent {
    const command = this.command(step);
    return this.append({
      type: EventType.CallPartial,
      executionId: this.executionId,
      commandId: command.commandId,
      step,
      payload: { task: step, chunk_index: index, has_more: hasMore, row_count: rows.length, columns: ['n'], rows_ref: this.ref(rows) },
    });
  }

  /** Fires every unfired timer (the timer sweep), after moving the clock to the latest due time. */
  fireTimers(): void {
    for (const timer of Object.values(this.state.timers)) {
      if (timer.fired) continue;
      const due = new Date(timer.dueAt);
      if (due > this.now) this.now = due;
      this.append({
        type: EventType.TimerFired,
        executionId: this.executionId,
        step: timer.step,
        payload: { timer_id: timer.timerId, purpose: timer.purpose },
      });
    }
  }

  /** The running loop epoch of a step. */
  loop(step: string): ExecutionState['loops'][string] {
    const loops = Object.values(this.state.loops).filter((l) => l.step === step && l.status === 'RUNNING');
    if (loops.length !== 1) throw new Error(`expected one running loop for ${step}, got ${loops.length}`);
    return loops[0]!;
  }

  /**
   * Commits frame `index` of a step's running loop with one outcome per row
   * (`Error`-like objects fail a row); `firstIndex` is the collection index of
   * its first row (0 unless given).
   */
  commitFrame(
    step: string,
    index: number,
    rows: (Json | { error: EventError })[],
    extra: { ctx?: JsonObject; byRef?: boolean; firstIndex?: number } = {},
  ): LedgerEvent {
    const loop = this.loop(step);
    // As a worker reports them: a frame's rows are the collection's, from frame index x rows per frame.
    const stepLoop = this.playbook.steps.find((candidate) => candidate.name === step)?.loop;
    const first = extra.firstIndex ?? index * (stepLoop ? maxRowsOf(stepLoop.frame) : 1);
    const failed = rows.flatMap((row, position) =>
      isRowError(row) ? [{ index: first + position, status: 'error' as const, error: row.error }] : [],
    );
    const results = rows.map((row) => (isRowError(row) ? null : row));
    return this.append({
      type: EventType.FrameCommitted,
      executionId: this.executionId,
      step,
      loopId: loop.loopId,
      stageId: loop.stageId,
      frameId: `${loop.loopId}-f${index}`,
      payload: {
        frame_id: `${loop.loopId}-f${index}`,
        stage_id: loop.stageId,
        frame_index: index,
        row_count: rows.length,
        first_index: first,
        failed_rows: failed,
        ...(extra.byRef ? { output_ref: this.ref(results) } : { results }),
        ...(extra.ctx ? { ctx: extra.ctx } : {}),
      },
    });
  }

  failFrame(step: string, index: number, error: EventError): LedgerEvent {
    const loop = this.loop(step);
    return this.append({
      type: EventType.FrameFailed,
      executionId: this.executionId,
      step,
      loopId: loop.loopId,
      stageId: loop.stageId,
      frameId: `${loop.loopId}-f${index}`,
      payload: { frame_id: `${loop.loopId}-f${index}`, stage_id: loop.stageId, frame_index: index, error, attempt: 3 },
    });
  }

  /** An outside signal, as the API appends it. */
  signal(name: string, payload: Json = {}): LedgerEvent {
    return this.append({ type: EventType.SignalReceived, executionId: this.executionId, payload: { name, payload } });
  }

  cancel(reason?: string): LedgerEvent {
    return this.append({
      type: EventType.ExecutionCancelled,
      executionId: this.executionId,
      payload: reason ? { reason } : {},
    });
  }

  // ---- reading the ledger --------------------------------------------------------------------

  types(): EventTypeName[] {
    return this.events.map((e) => e.event_type);
  }

  ofType<T extends EventTypeName>(type: T): Extract<LedgerEvent, { event_type: T }>[] {
    return this.events.filter((e): e is Extract<LedgerEvent, { event_type: T }> => e.event_type === type);
  }

  /** `step.enter` / `step.exit` / `command.issued` as `<type> <step>` lines, for ordering assertions. */
  trace(): string[] {
    return this.events
      .filter((e) => [EventType.StepEnter, EventType.StepExit].includes(e.event_type as never))
      .map((e) => `${e.event_type === EventType.StepEnter ? 'enter' : 'exit'} ${e.node_name ?? ''}`);
  }
}

function isRowError(row: Json | { error: EventError }): row is { error: EventError } {
  return typeof row === 'object' && row !== null && !Array.isArray(row) && 'error' in row && Object.keys(row).length === 1;
}
