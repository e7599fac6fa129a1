import {
  EventType,
  type EventCall,
  type EventDraft,
  type EventError,
  type EventOutputLine,
  type EventTypeName,
  type Json,
  type JsonObject,
  type PayloadRef,
} from '@noetl/event-kernel';
import { putJson, type PayloadStore, type TenantScope } from '@noetl/storage';
import type { CommandRow } from '@noetl/storage';

export type CommandOutcome =
  | { status: 'COMPLETED'; result?: Json; ctx?: JsonObject; calls?: EventCall[]; durationMs?: number; output?: EventOutputLine[] }
  | { status: 'FAILED'; error: EventError; ctx?: JsonObject; calls?: EventCall[]; durationMs?: number; output?: EventOutputLine[] };

/** Where a command's events belong: its execution, step and id, and a fan-out shard's loop. */
export function commandWhere(command: CommandRow): { executionId: string; step: string; commandId: string; loopId?: string } {
  return {
    executionId: command.execution_id,
    step: command.step,
    commandId: command.command_id,
    ...(command.loop_id !== null ? { loopId: command.loop_id } : {}),
  };
}

/** `call.done` / `call.error` per call, in order: calls a worker reports ahead of its command's end (a terminal report lists its calls in its own event). */
export function callDrafts(command: CommandRow, calls: readonly EventCall[]): EventDraft<EventTypeName>[] {
  return calls.map((call) =>
    call.status === 'ok'
      ? {
          ...commandWhere(command),
          type: EventType.CallDone,
          payload: { task: call.task, attempts: call.attempts, duration_ms: call.duration_ms },
        }
      : {
          ...commandWhere(command),
          type: EventType.CallError,
          payload: {
            task: call.task,
            attempts: call.attempts,
            duration_ms: call.duration_ms,
            error: call.error ?? { kind: 'internal', message: 'the worker reported an error without details' },
          },
        },
  );
}

/** A COMPLETED outcome's result as the event carries it: inline, or above the limit a ref into the payload store (invariant 6). */
export type StoredResult = { result: Json } | { result_ref: PayloadRef } | undefined;

/** Stores a large result (content-addressed: a retried report writes it once); undefined for a failure. */
export async function storedResult(
  outcome: CommandOutcome,
  payloads: { store: PayloadStore; scope: TenantScope; inlineLimitBytes: number },
): Promise<StoredResult> {
  if (outcome.status === 'FAILED') return undefined;
  const result = outcome.result ?? null;
  if (Buffer.byteLength(JSON.stringify(result)) <= payloads.inlineLimitBytes) return { result };
  return { result_ref: await putJson(payloads.store, result, payloads.scope) };
}

/** The terminal event of a command. */
export function terminalDraft(command: CommandRow, outcome: CommandOutcome, stored: StoredResult): EventDraft<EventTypeName> {
  const base = commandWhere(command);
  const common = {
    ...(outcome.ctx && Object.keys(outcome.ctx).length > 0 ? { ctx: outcome.ctx } : {}),
    ...(outcome.durationMs !== undefined ? { duration_ms: outcome.durationMs } : {}),
    ...(outcome.calls && outcome.calls.length > 0 ? { calls: [...outcome.calls] } : {}),
    ...(outcome.output && outcome.output.length > 0 ? { output: [...outcome.output] } : {}),
  };
  if (outcome.status === 'FAILED') {
    return { ...base, type: EventType.CommandFailed, status: 'FAILED', payload: { error: outcome.error, ...common } };
  }
  return { ...base, type: EventType.CommandCompleted, status: 'COMPLETED', payload: { ...(stored ?? { result: null }), ...common } };
}
