/**
 * The errors the runtime throws on purpose. Each has a stable `code` that the
 * API edge maps to one HTTP status (runtime-error-status.ts in libs/roles/src/api) and
 * the CLI prints as is.
 */
export type RuntimeErrorCode =
  | 'not_found'
  | 'invalid_playbook'
  | 'invalid_payload'
  | 'invalid_request'
  | 'already_terminal'
  /** The execution still runs, and what was asked needs it ended (a rerun). */
  | 'execution_running'
  | 'already_claimed'
  | 'lease_lost'
  | 'tool_not_allowed'
  /** A worker claimed work of another pool (or work of a pool without being of one): nothing changed. */
  | 'wrong_pool'
  | 'credential_not_allowed'
  | 'credentials_locked'
  | 'unauthenticated'
  | 'forbidden'
  /** The work would pass one of the operator's limits (NOETL_MAX_*): nothing of it was started. */
  | 'limit_exceeded'
  /** The ledger of the execution was changed after it was written (`noetl verify` names where): nothing is folded from it. */
  | 'ledger_corrupt';

export class RuntimeError extends Error {
  constructor(
    readonly code: RuntimeErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'RuntimeError';
  }
}

export function notFound(what: string, id: string): RuntimeError {
  return new RuntimeError('not_found', `${what} ${id} not found`);
}
