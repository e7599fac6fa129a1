import { CallError } from '@noetl/dsl';
import type { DatabaseIdentity } from '@noetl/tools';
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
  return (name) => asked(`credential "${name}" could not be looked up`, 'CREDENTIAL_UNAVAILABLE', () => lookup(name));
}

/**
 * The ledger's identity asked of the API (a worker without the ledger's
 * database asks it at each new connection of a postgres step), its
 * transient failure retryable like a credential lookup's: an API restarting
 * under a loop's sinks must not fail their rows for good.
 */
export function retryableLedgerIdentity(identity: () => Promise<DatabaseIdentity>): () => Promise<DatabaseIdentity> {
  return () => asked("the ledger's identity could not be asked of the API", 'LEDGER_IDENTITY_UNAVAILABLE', identity);
}

/** `ask()`, a failure that is no refusal (a RuntimeError) or call error turned into a retryable `connection` error. */
async function asked<T>(what: string, code: string, ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof RuntimeError || error instanceof CallError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new CallError({ kind: 'connection', message: `${what}: ${message}`, retryable: true, code });
  }
}
