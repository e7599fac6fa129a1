import {
  buildEvent,
  TentativeFold,
  type EventDraft,
  type EventError,
  type EventTypeName,
  type ExecutionState,
  type Json,
  type LedgerEvent,
  type PayloadRef,
} from '@noetl/event-kernel';
import type { TemplateRenderer } from '../expressions';
import type { Playbook, Step } from '../model';
import { buildScope } from '../scope';
import { playbookScopeNames, stepScopeNames } from './scope-names';

export interface PlannerEnv {
  now: Date;
  /** Fresh 64-bit decimal ids for runs, commands, loops, stages, timers. */
  newId: () => string;
  /** In [0, 1), for jitter. */
  random: () => number;
  /** The expression engine, or an inline slice of it (see withSettledRenders). */
  renderer: TemplateRenderer;
  /** Payload refs the scheduler preloaded (results, frame outputs); throws if absent. */
  resolve: (ref: PayloadRef) => Json;
  /** The operator's limits (NOETL_MAX_LOOP_ITEMS); absent: none. */
  limits?: { loopItems?: number };
}

/** A draft as a rule states it; the context adds execution, causation and idempotency. */
export type Decision = {
  [K in EventTypeName]: Omit<EventDraft<K>, 'executionId' | 'causationId' | 'idempotencyKey'> & { type: K };
}[EventTypeName];

/** What the step's trigger looks like to arcs and `set` (`{{ event.name }}`). */
export interface TriggerView {
  name: string;
  payload: unknown;
}

/**
 * A step cannot go on: a rule throws it, the step-level guard turns it into
 * `step.exit FAILED` + `execution.failed`.
 */
export class StepFailure extends Error {
  constructor(readonly error: EventError) {
    super(error.message);
    this.name = 'StepFailure';
  }
}

/**
 * One planning pass: the playbook, the trigger, the injected world, and the
 * state into which every decision is folded as it is made, so that later
 * decisions of the batch see earlier ones (a step `set` before its arcs, an
 * arc `set` before the target's entry). The folds are tentative: `plan`
 * takes them back before it returns (a copy of the whole state per pass
 * made each step cost as much as the execution's history).
 */
export class PlanContext {
  readonly drafts: EventDraft<EventTypeName>[] = [];
  readonly state: ExecutionState;
  private readonly stepsByName: ReadonlyMap<string, Step>;

  constructor(
    readonly playbook: Playbook,
    private readonly fold: TentativeFold,
    readonly trigger: LedgerEvent,
    readonly env: PlannerEnv,
  ) {
    this.state = fold.state;
    this.stepsByName = stepIndex(playbook);
  }

  get running(): boolean {
    return this.state.status === 'RUNNING';
  }

  emit(decision: Decision): void {
    const draft = {
      ...decision,
      executionId: this.state.executionId,
      causationId: this.trigger.event_id,
      idempotencyKey: `plan:${this.trigger.event_id}:${this.drafts.length}`,
    } as EventDraft<EventTypeName>;
    const index = this.drafts.length;
    this.drafts.push(draft);
    this.fold.apply(this.sealForFold(draft, index));
  }

  /** The step of that name; an unknown name (the parser prevents it) is an internal failure. */
  step(name: string): Step {
    const step = this.stepsByName.get(name);
    if (!step) throw new StepFailure({ kind: 'internal', message: `unknown step "${name}"`, step: name });
    return step;
  }

  hasStep(name: string): boolean {
    return this.stepsByName.has(name);
  }

  /**
   * The render scope for `step`'s templates (its set, arcs, loop, retry,
   * sleep): only the names they spell, so building it costs what the step
   * reads, not what the execution has done; without a step, every name a
   * template of the playbook spells.
   */
  scope(extra?: Record<string, unknown>, step?: Step): Record<string, unknown> {
    const only = step ? stepScopeNames(step) : playbookScopeNames(this.playbook);
    return buildScope({ state: this.state, playbook: this.playbook, resolve: this.env.resolve, extra, only });
  }

  newId(): string {
    return this.env.newId();
  }

  /** A stand-in envelope, only for folding a decision into the working state. */
  private sealForFold(draft: EventDraft<EventTypeName>, index: number): LedgerEvent {
    const event = buildEvent(draft, {
      ids: { next: () => `${this.trigger.event_id}:${index}` },
      now: () => this.env.now,
      producer: 'planner',
      tenantId: this.state.tenantId,
      organizationId: this.state.organizationId,
    });
    return { ...event, stream_version: 0, ingest_time: event.event_time, checksum: '' } as LedgerEvent;
  }
}

const stepIndexes = new WeakMap<Playbook, ReadonlyMap<string, Step>>();

function stepIndex(playbook: Playbook): ReadonlyMap<string, Step> {
  let index = stepIndexes.get(playbook);
  if (!index) {
    index = new Map(playbook.steps.map((step) => [step.name, step]));
    stepIndexes.set(playbook, index);
  }
  return index;
}
