import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/** Field names whose values are masked in every log line (DESIGN.md invariant 8). */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  '*.db_password',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  'secret',
  '*.secret',
  'data.password',
];

/** A pino logger with the redaction every process uses; to stdout unless given another destination (the CLI: stderr). */
export function createLogger(level: string, name: string, destination?: pino.DestinationStream): Logger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '***' } }, destination);
}

/** Routes Nest's own logging into pino as structured JSON. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
