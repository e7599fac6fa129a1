import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';

/** The one error body of the API (DESIGN.md s6): `{code, message, details?}`. */
export interface ApiErrorBody {
  code: string;
  message: string;
  details?: unknown;
}

const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  503: 'unavailable',
};

/** Maps every error to the one body; unknown errors become 500 with a logged error id. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('api');

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const [status, body] = this.toBody(error);
    response.status(status).json(body);
  }

  private toBody(error: unknown): [number, ApiErrorBody] {
    if (error instanceof HttpException) {
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
          code: CODE_BY_STATUS[status] ?? `http_${status}`,
          message: messages ? messages.join('; ') : String(message ?? error.message),
          ...(messages ? { details: messages } : {}),
        },
      ];
    }
    const errorId = randomUUID();
    this.logger.error(`unhandled error ${errorId}`, error instanceof Error ? error.stack : String(error));
    return [HttpStatus.INTERNAL_SERVER_ERROR, { code: 'internal', message: `internal error (id ${errorId})` }];
  }
}
