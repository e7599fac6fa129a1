import { CallError } from '@noetl/dsl';
import { RuntimeError } from '../runtime-error';

/**
 * A credential lookup whose transient failure (the API unreachable or
 * answering 5xx: restarting, its database down) is a retryable `connection`
 * error of the call, which a step's `retry` on `error.retryable` covers,
 * rather than a final `auth` error. A refusal (unknown credential, not
 * allowed, the lease lost) stays final.
 */
export function retryableLookup(
  lookup: (name: string) => Promise<Record<string, unknown>>,
): (name: string) => Promise<Record<string, unknown>> {
  return async (name) => {
    try {
      return await lookup(name);
    } catch (error) {
      if (error instanceof RuntimeError || error instanceof CallError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new CallError({
        kind: 'connection',
        message: `credential "${name}" could not be looked up: ${message}`,
        retryable: true,
        code: 'CREDENTIAL_UNAVAILABLE',
      });
    }
  };
}
