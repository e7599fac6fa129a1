import { CallError } from '@noetl/dsl';

/** A config the tool cannot use (missing key, wrong type): not retryable. */
export function invalidConfig(tool: string, message: string): CallError {
  return new CallError({ kind: 'internal', message: `${tool}: ${message}`, retryable: false, code: 'INVALID_CONFIG' });
}

export function cancelledError(tool: string): CallError {
  return new CallError({ kind: 'cancelled', message: `${tool}: cancelled`, retryable: false, code: 'CANCELLED' });
}

export function throwIfAborted(signal: AbortSignal, tool: string): void {
  if (signal.aborted) throw cancelledError(tool);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `code` of a Node system error or driver error, when it has one. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
