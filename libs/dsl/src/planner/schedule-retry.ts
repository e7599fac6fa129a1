import { EventType, type EventError, type LedgerEvent } from '@noetl/event-kernel';
import { ERROR_KINDS, type CallErrorInfo, type ErrorKind, type Step } from '../model';
import { evaluatePolicies, outcomeScope, type CallOutcome, type PolicyDecision } from '../policy';
import { hasKeys, renderSet } from './apply-set';
import { openRunOf } from './command-run';
import { completeStep } from './complete-step';
import { failStep, guardStep } from './fail-step';
import type { PlanContext } from './plan-context';

type CommandFailedEvent = Extract<LedgerEvent, { event_type: typeof EventType.CommandFailed }>;

/**
 * A step's command failed (DESIGN.md "Retry"): the worker's `ctx.*` writes
 * are recorded, then the step's `retry` policies decide, with
 * `{status: 'error', error, attempt}` as the outcome. A retry with attempts
 * left -> `retry.scheduled` (a durable timer due after the backoff); a
 * policy that lets the step proceed -> the step completes with
 * `{status: 'error', error}`; otherwise the step fails, and with it the
 * execution. The matched policy's `ctx.*` set is recorded before either.
 */
export function onCommandFailed(ctx: PlanContext, event: CommandFailedEvent): void {
  const open = openRunOf(ctx, event.command_id);
  if (!open) return;
  const { command, run } = open;
  const p = event.payload;
  guardStep(ctx, run.runId, run.step, () => {
    const step = ctx.step(run.step);
    if (p.ctx && Object.keys(p.ctx).length > 0) {
      ctx.emit({ type: EventType.CtxUpdated, step: step.name, payload: { set: p.ctx, step: step.name } });
    }
    const outcome: CallOutcome = { status: 'error', error: callErrorOf(p.error), attempt: command.attempt, durationMs: p.duration_ms ?? 0 };
    routeStepError(ctx, step, run.runId, p.error, outcome, { name: EventType.CommandFailed, payload: p }, (decision) => {
      const timerId = ctx.newId();
      ctx.emit({
        type: EventType.RetryScheduled,
        step: step.name,
        commandId: command.commandId,
        payload: {
          step: step.name,
          run_id: run.runId,
          failed_command_id: command.commandId,
          attempt: decision.attempt,
          due_at: new Date(ctx.env.now.getTime() + decision.delayMs).toISOString(),
          delay_ms: decision.delayMs,
          timer_id: timerId,
          error: p.error,
        },
      });
    });
  });
}

/**
 * A step's error through its `retry` policies (`{{ error }}`, `{{ output }}`
 * and `{{ event }}` in scope): the matched policy's `ctx.*` set is recorded,
 * then a retry with attempts left is the caller's (`retry`: a command's next
 * attempt, a wait's next timeout); a policy that lets the step proceed
 * completes it with `{status: 'error', error}` for the arcs; otherwise the
 * step fails, and with it the execution. Runs inside the caller's guardStep.
 */
export function routeStepError(
  ctx: PlanContext,
  step: Step,
  runId: string,
  error: EventError,
  outcome: Extract<CallOutcome, { status: 'error' }>,
  trigger: { name: string; payload: unknown },
  retry: (decision: Extract<PolicyDecision, { kind: 'retry' }>) => void,
): void {
  const scope = ctx.scope({ event: { ...trigger, step: step.name } }, step);
  const decision = evaluatePolicies(step.retry, outcome, {
    evaluateWhen: (when, whenScope) => ctx.env.renderer.evaluateCondition(when, whenScope),
    random: ctx.env.random,
    scope,
  });
  const policySet = renderSet(ctx, decision.set, { ...scope, ...outcomeScope(outcome) });
  if (hasKeys(policySet.ctx)) ctx.emit({ type: EventType.CtxUpdated, step: step.name, payload: { set: policySet.ctx, step: step.name } });
  switch (decision.kind) {
    case 'retry':
      retry(decision);
      return;
    case 'complete':
    case 'break':
      completeStep(ctx, runId, {
        value: { status: 'error', error: { ...error } },
        output: outcomeScope(outcome)['output'],
        trigger: { name: trigger.name, payload: { error } },
      });
      return;
    case 'fail':
      failStep(ctx, runId, { ...error, message: step.retry.length > 0 ? decision.reason : error.message });
      return;
    case 'jump':
    case 'continue':
      failStep(ctx, runId, {
        ...error,
        message: `retry policy chose ${decision.kind}, which only a pipeline task can do: ${error.message}`,
      });
      return;
  }
}

/** The event's error as the policy evaluator sees it (an unknown kind reads as `internal`). */
export function callErrorOf(error: EventError): CallErrorInfo {
  const kind = (ERROR_KINDS as readonly string[]).includes(error.kind) ? (error.kind as ErrorKind) : 'internal';
  const info: CallErrorInfo = { kind, message: error.message, retryable: error.retryable ?? false };
  if (error.status !== undefined) info.status = error.status;
  if (error.code !== undefined) info.code = error.code;
  const retryAfter = (error as { retry_after_ms?: unknown }).retry_after_ms;
  if (typeof retryAfter === 'number' && Number.isFinite(retryAfter)) info.retry_after_ms = retryAfter;
  return info;
}
