import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { RuntimeError } from '@noetl/runtime';
import {
  InDoubtCommitError,
  isConnectionLoss,
  isLockNotAvailable,
  isPoolWaitTimeout,
  isQueryTimeout,
  ObjectStoreError,
} from '@noetl/storage';
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { RUNTIME_ERROR_STATUS } from './runtime-error-status';

/** What a `busy` answer asks the caller to wait, in seconds. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** The one error body of the API (DESIGN.md s6): `{code, message, details?}`. */
export interface ApiErrorBody {
  code: string;
  message: string;
  details?: unknown;
  /** `invalid_playbook` only: each problem with its place in the document. */
  errors?: unknown;
}

const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  503: 'unavailable',
};

/** An error body-parser raised (http-errors): a client error whose message is safe to show. */
interface ExposedHttpError {
  status: number;
  message: string;
  expose: true;
}

/** Maps every error to the one body; unknown errors become 500 with a logged error id. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('api');

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const [status, body] = this.toBody(error);
    if (
      status === HttpStatus.SERVICE_UNAVAILABLE &&
      (body.code === 'busy' || body.code === 'database_unavailable' || body.code === 'in_doubt')
    )
      response.setHeader('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
    response.status(status).json(body);
  }

  private toBody(error: unknown): [number, ApiErrorBody] {
    if (error instanceof RuntimeError) return runtimeErrorBody(error);
    // A lock the request needed stayed held past the database's lock_timeout (a long pass, a stopped process): try again.
    if (isLockNotAvailable(error))
      return [HttpStatus.SERVICE_UNAVAILABLE, { code: 'busy', message: 'the work this request touches is busy; retry shortly' }];
    // Every database connection stayed busy past the pool's wait (a burst of requests): nothing ran, try again.
    if (isPoolWaitTimeout(error))
      return [HttpStatus.SERVICE_UNAVAILABLE, { code: 'busy', message: 'every database connection is busy; retry shortly' }];
    // Issue 29: the ledger's connection died as the change committed. It may have been applied: the caller's retry with
    // the same idempotency key (a worker's report, a signal's key) is recognised as done; without one, look before repeating.
    if (error instanceof InDoubtCommitError) {
      return [
        HttpStatus.SERVICE_UNAVAILABLE,
        {
          code: 'in_doubt',
          message:
            'the database connection was lost as the change committed: it may have been applied; retry with the same idempotency key, or check before repeating it',
        },
      ];
    }
    // A statement PostgreSQL did not answer within NOETL_DB_QUERY_TIMEOUT_MS (a partition): its connection is closed; a retry takes another.
    if (isQueryTimeout(error))
      return [HttpStatus.SERVICE_UNAVAILABLE, { code: 'unavailable', message: 'the database did not answer in time; retry shortly' }];
    // The database failed over, restarted or cut the connection; nothing was committed: try again.
    if (isConnectionLoss(error))
      return [
        HttpStatus.SERVICE_UNAVAILABLE,
        { code: 'database_unavailable', message: 'the database is unreachable or failing over; retry shortly' },
      ];
    // The payload bucket failed past the client's retries (an outage): the caller's retry, later, can succeed.
    if (error instanceof ObjectStoreError) return [HttpStatus.SERVICE_UNAVAILABLE, { code: 'unavailable', message: error.message }];
    if (error instanceof HttpException) return httpExceptionBody(error);
    if (isExposedHttpError(error)) return [error.status, { code: codeOf(error.status), message: error.message }];
    const errorId = randomUUID();
    this.logger.error(`unhandled error ${errorId}`, error instanceof Error ? error.stack : String(error));
    return [HttpStatus.INTERNAL_SERVER_ERROR, { code: 'internal', message: `internal error (id ${errorId})` }];
  }
}

function runtimeErrorBody(error: RuntimeError): [number, ApiErrorBody] {
  const status = RUNTIME_ERROR_STATUS[error.code];
  if (error.code === 'invalid_playbook') return [status, { code: error.code, message: error.message, errors: error.details ?? [] }];
  return [status, { code: error.code, message: error.message, ...(error.details !== undefined ? { details: error.details } : {}) }];
}

function httpExceptionBody(error: HttpException): [number, ApiErrorBody] {
  const status = error.getStatus();
  const raw = error.getResponse();
  if (typeof raw === 'object' && raw !== null && 'code' in raw && typeof raw.code === 'string') {
    return [status, raw as ApiErrorBody];
  }
  const message = typeof raw === 'string' ? raw : (raw as { message?: unknown }).message;
  const messages = Array.isArray(message) ? message.map(String) : undefined;
  return [
    status,
    {
      code: codeOf(status),
      message: messages ? messages.join('; ') : String(message ?? error.message),
      ...(messages ? { details: messages } : {}),
    },
  ];
}

function isExposedHttpError(error: unknown): error is ExposedHttpError {
  if (!(error instanceof Error)) return false;
  const { status, expose } = error as Error & { status?: unknown; expose?: unknown };
  return expose === true && typeof status === 'number' && status >= 400 && status < 500;
}

function codeOf(status: number): string {
  return CODE_BY_STATUS[status] ?? `http_${status}`;
}
