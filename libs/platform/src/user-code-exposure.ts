import type { NoetlConfig } from '@noetl/config';
import type { Logger } from 'pino';
import { opensLedger } from './ledger-access';

/**
 * Why python steps of this process could reach the ledger with the runtime's
 * own access, or undefined (issue 25 item 2). A worker that is not root cannot
 * run a step as another user: the step runs as the worker's user and reads
 * the worker's environment (`DATABASE_URL`, keys) from `/proc/<ppid>/environ`,
 * or the embedded server's password file under NOETL_HOME. A worker that
 * reports to an API and holds no DATABASE_URL has no such access to give
 * (docs/design.md "Isolation"); this says so where the environment makes it worse.
 */
export function userCodeExposure(config: NoetlConfig, uid: number | undefined): string | undefined {
  if (!config.roles.includes('worker') || !config.worker.python || uid === 0 || uid === undefined) return undefined;
  if (!config.database.url && !opensLedger(config)) return undefined;
  const reach = config.database.url ? 'DATABASE_URL' : `the embedded PostgreSQL's password (${config.home})`;
  return (
    `python steps run as this process's own user (uid ${uid}, not root), so they can read ${reach} and its other secrets: ` +
    'run workers that allow python as root (steps then run as NOETL_PYTHON_USER) in a container of their own, or set NOETL_PYTHON=off'
  );
}

/** At every start of a process with the worker role: a warning when its python steps could take its database access. */
export function warnIfUserCodeExposed(config: NoetlConfig, logger: Logger): void {
  const reason = userCodeExposure(config, process.getuid?.());
  if (reason) logger.warn(reason);
}
