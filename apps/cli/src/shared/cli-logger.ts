import type { NoetlConfig } from '@noetl/config';
import { createLogger } from '@noetl/platform';
import type { Logger } from 'pino';

/**
 * The engine's logger inside a CLI command: on stderr, so that stdout holds
 * only what the command prints, and from `warn` up at the default level,
 * because info lines would interleave with the progress display.
 * LOG_LEVEL=debug (or trace) still shows everything.
 */
export function cliLogger(config: NoetlConfig, name: string): Logger {
  const level = config.log.level === 'info' ? 'warn' : config.log.level;
  return createLogger({ ...config.log, level }, name, 2);
}
