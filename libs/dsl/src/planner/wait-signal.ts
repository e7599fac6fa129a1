import {
  EventType,
  type EventError,
  type Json,
  type LedgerEvent,
  type PendingSignal,
  type StepRun,
  type TimerState,
} from '@noetl/event-kernel';
import type { Step } from '../model';
import { toPlainJson } from '../scope';
import { completeStep } from './complete-step';
import { guardStep } from './fail-step';
import { StepFailure, type PlanContext } from './plan-context';
import { routeStepError } from './schedule-retry';

type SignalReceivedEvent = Extract<LedgerEvent, { event_type: typeof EventType.SignalReceived }>;
type TimerFiredEvent = Extract<LedgerEvent, { event_type: typeof EventType.TimerFired }>;

/** A step whose tool is one `wait` task: it parks durably, no worker held (DSL.md s3). */
export function isWaitStep(step: Step): boolean {
  const tasks = step.tool?.tasks ?? [];
  return tasks.length === 1 && tasks[0]?.kind === 'wait' && step.loop === undefined;
}

/**
 * A wait step is entered: the oldest signal of its name already received and
 * not consumed whose payload passes `when` completes it at once; otherwise it
 * parks, with a `timer.scheduled {purpose: wait}` when it has a `timeout`.
 */
export function startWait(ctx: PlanContext, step: Step, runId: string): void {
  const name = signalName(step);
  for (const signal of ctx.state.signals?.[name] ?? []) {
    if (admits(ctx, step, signal.payload)) {
      consume(ctx, runId, name, signal);
      return;
    }
  }
  armTimeout(ctx, step, runId);
}

/**
 * A signal arrived (`signal.received`, already folded into the pending
 * signals): the oldest waiting run of a step waiting for that name whose
 * `when` admits the payload consumes it. None: it stays pending for a later
 * wait. A `when` that does not render fails its run.
 */
export function onSignalReceived(ctx: PlanContext, event: SignalReceivedEvent): void {
  const { name } = event.payload;
  const signal = ctx.state.signals?.[name]?.find((pending) => pending.eventId === event.event_id);
  if (!signal) return;
  for (const run of waitingRuns(ctx, name)) {
    let admitted = false;
    guardStep(ctx, run.runId, run.step, () => {
      admitted = admits(ctx, ctx.step(run.step), signal.payload);
    });
    if (admitted) {
      consume(ctx, run.runId, name, signal);
      return;
    }
  }
}

/**
 * The wait's timeout fired before a signal came: the step fails with
 * `{kind: timeout, code: signal_timeout}`, which its `retry` policies route
 * like any error: `do: continue` completes it with `{status: error, error}`
 * for the arcs, a retry waits one more `timeout` (up to its attempts), no
 * match fails the step.
 */
export function onWaitTimeout(ctx: PlanContext, run: StepRun, timer: TimerState, event: TimerFiredEvent): void {
  guardStep(ctx, run.runId, run.step, () => {
    const step = ctx.step(run.step);
    const attempt = Object.values(ctx.state.timers).filter(
      (candidate) => candidate.runId === run.runId && candidate.purpose === 'wait',
    ).length;
    const error: EventError = {
      kind: 'timeout',
      code: 'signal_timeout',
      message: `no signal "${signalName(step)}" arrived by ${timer.dueAt}`,
      retryable: false,
    };
    const outcome = {
      status: 'error' as const,
      error: { kind: 'timeout' as const, code: error.code, message: error.message, retryable: false },
      attempt,
      durationMs: 0,
    };
    routeStepError(ctx, step, run.runId, error, outcome, { name: EventType.TimerFired, payload: event.payload }, () =>
      armTimeout(ctx, step, run.runId),
    );
  });
}

function consume(ctx: PlanContext, runId: string, name: string, signal: PendingSignal): void {
  completeStep(ctx, runId, {
    value: signal.payload,
    trigger: { name: EventType.SignalReceived, payload: { name, payload: signal.payload } },
    signal: { name, event_id: signal.eventId },
  });
}

/** `when` (default true) over `{{ signal }}`, the payload, with the execution's scope around it. */
function admits(ctx: PlanContext, step: Step, payload: Json): boolean {
  const when = waitConfig(step)['when'];
  if (when === undefined || when === null) return true;
  if (typeof when !== 'string' && typeof when !== 'boolean') return false;
  return ctx.env.renderer.evaluateCondition(when, ctx.scope({ signal: payload }));
}

/** A `timer.scheduled {purpose: wait}` due `timeout` (rendered) seconds from now; none without a timeout. */
function armTimeout(ctx: PlanContext, step: Step, runId: string): void {
  const raw = waitConfig(step)['timeout'];
  if (raw === undefined || raw === null) return;
  const rendered = toPlainJson(ctx.env.renderer.renderValue(raw, ctx.scope()));
  const seconds = typeof rendered === 'string' && rendered.trim() !== '' ? Number(rendered) : rendered;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
    throw new StepFailure({
      kind: 'internal',
      message: `wait step ${step.name}: "timeout" must be a non-negative number of seconds, got ${JSON.stringify(rendered)}`,
      step: step.name,
    });
  }
  ctx.emit({
    type: EventType.TimerScheduled,
    step: step.name,
    payload: {
      timer_id: ctx.newId(),
      purpose: 'wait',
      step: step.name,
      run_id: runId,
      due_at: new Date(ctx.env.now.getTime() + Math.round(seconds * 1000)).toISOString(),
    },
  });
}

/** Runs parked on a wait for `name`, oldest first. */
function waitingRuns(ctx: PlanContext, name: string): StepRun[] {
  return Object.values(ctx.state.runs)
    .filter(
      (run) =>
        run.status === 'RUNNING' && ctx.hasStep(run.step) && isWaitStep(ctx.step(run.step)) && signalName(ctx.step(run.step)) === name,
    )
    .sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : compareIds(a.runId, b.runId)));
}

function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function waitConfig(step: Step): Record<string, Json> {
  return step.tool?.tasks[0]?.config ?? {};
}

function signalName(step: Step): string {
  const name = waitConfig(step)['signal'];
  return typeof name === 'string' ? name : '';
}
