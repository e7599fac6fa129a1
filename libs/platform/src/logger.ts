import type { LoggerService } from '@nestjs/common';
import type { LogFormat, NoetlConfig } from '@noetl/config';
import pino, { type Logger } from 'pino';
import type { PrettyOptions, PrettyStream } from 'pino-pretty';

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

/** Whether log lines are printed for a person: `pretty` always, `auto` when they go to a terminal; JSON otherwise (a collector parses them). */
export function logsArePretty(format: LogFormat, toTerminal: boolean): boolean {
  return format === 'pretty' || (format === 'auto' && toTerminal);
}

/**
 * A pino logger with the redaction every process uses, on stdout (fd 1)
 * unless told another file descriptor (the CLI: stderr). Redaction happens
 * before either format, so a pretty line masks what a JSON line masks.
 */
export function createLogger(log: NoetlConfig['log'], name: string, fd: 1 | 2 = 1): Logger {
  const options = { name, level: log.level, redact: { paths: REDACTED_PATHS, censor: '***' } };
  const terminal = fd === 1 ? process.stdout.isTTY : process.stderr.isTTY;
  return pino(options, logsArePretty(log.format, terminal === true) ? prettyStream(fd) : pino.destination({ fd, sync: true }));
}

/**
 * One line per entry, `HH:MM:ss.l LEVEL (name): [context] message` and the
 * entry's fields below it. Loaded only here: pino-pretty takes ~100 ms to
 * load, which a process logging JSON need not pay.
 */
function prettyStream(fd: 1 | 2): PrettyStream {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pretty = require('pino-pretty') as (options: PrettyOptions) => PrettyStream;
  return pretty({
    destination: fd,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,context',
    messageFormat: '{if context}[{context}] {end}{msg}',
  });
}

/**
 * Nest's own lines at start (module wiring, each mapped route, "successfully
 * started"): ~80 lines that say nothing an operator acts on, so at debug.
 * The role's own "ready" line says the process is up.
 */
const NEST_BOOT_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  'NestMicroservice',
]);

/** Routes Nest's own logging into pino; its boot chatter at debug (above). */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    if (context !== undefined && NEST_BOOT_CONTEXTS.has(context)) this.logger.debug({ context }, String(message));
    else this.logger.info({ context }, String(message));
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
