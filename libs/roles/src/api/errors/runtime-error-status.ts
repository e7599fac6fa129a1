import { HttpStatus } from '@nestjs/common';
import type { RuntimeErrorCode } from '@noetl/runtime';

/** The one place a runtime error code becomes an HTTP status (STYLE.md "Errors"). */
export const RUNTIME_ERROR_STATUS: Record<RuntimeErrorCode, HttpStatus> = {
  not_found: HttpStatus.NOT_FOUND,
  invalid_playbook: HttpStatus.UNPROCESSABLE_ENTITY,
  invalid_payload: HttpStatus.UNPROCESSABLE_ENTITY,
  invalid_request: HttpStatus.BAD_REQUEST,
  already_terminal: HttpStatus.CONFLICT,
  execution_running: HttpStatus.CONFLICT,
  already_claimed: HttpStatus.CONFLICT,
  lease_lost: HttpStatus.CONFLICT,
  // The worker asked for work its NOETL_WORKER_TOOLS do not cover.
  tool_not_allowed: HttpStatus.FORBIDDEN,
  wrong_pool: HttpStatus.FORBIDDEN,
  // The holder asked for a credential its work does not name.
  credential_not_allowed: HttpStatus.FORBIDDEN,
  // The server lacks its key: the request is fine, the service cannot serve it yet.
  credentials_locked: HttpStatus.SERVICE_UNAVAILABLE,
  // No valid key or token was presented.
  unauthenticated: HttpStatus.UNAUTHORIZED,
  // The caller's role may not do this.
  forbidden: HttpStatus.FORBIDDEN,
  // Understood, but it would pass an operator's limit (nesting depth, child executions).
  limit_exceeded: HttpStatus.UNPROCESSABLE_ENTITY,
  // The request is fine; the execution's ledger is not what was written.
  ledger_corrupt: HttpStatus.CONFLICT,
};
