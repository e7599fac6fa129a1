import type { CallErrorInfo, CallRecord } from '@noetl/dsl';
import type { EventCall, EventError } from '@noetl/event-kernel';

/** The ledger's error shape from the interpreter's (only the fields the ledger keeps). */
export function eventErrorOf(info: CallErrorInfo, step?: string): EventError {
  return {
    kind: info.kind,
    message: info.message,
    retryable: info.retryable,
    ...(info.status !== undefined ? { status: info.status } : {}),
    ...(info.code !== undefined ? { code: info.code } : {}),
    ...(info.expression !== undefined ? { expression: info.expression } : {}),
    ...(step !== undefined ? { step } : {}),
  };
}

export function callReportOf(record: CallRecord): EventCall {
  return {
    task: record.task,
    attempts: record.attempts,
    duration_ms: Math.round(record.durationMs),
    status: record.status,
    ...(record.error ? { error: eventErrorOf(record.error) } : {}),
  };
}
