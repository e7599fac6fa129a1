import type { NoetlConfig, Role } from '@noetl/config';
import type { Database } from '@noetl/storage';
import { ledgerExposureReason, ledgerLogins, passwordlessLogins, readSocketDirectories } from '@noetl/tools';

/**
 * Why python steps of this process are refused, or undefined (issue 25 item 2; docs/design.md
 * "Isolation"). A worker that opens the ledger knows where it is; a python step on the same host
 * can connect there too, and a cluster that trusts this host (pg_hba `trust` for loopback, as on a
 * laptop or the test services) gives it the superuser with no password. So at start the worker
 * tries, as a step could, the DSN's address and the server's local sockets as the DSN's user and
 * as `postgres`, without a password. NOETL_PYTHON_LEDGER_ACCESS=allow skips it.
 */
export async function pythonLedgerRefusal(
  config: NoetlConfig,
  roles: readonly Role[],
  database: Database | undefined,
): Promise<string | undefined> {
  if (!roles.includes('worker') || !config.worker.python || config.tools.python.ledgerAccess === 'allow') return undefined;
  // A worker restricted to other kinds (NOETL_WORKER_TOOLS) is never offered a python step.
  if (config.worker.tools && !config.worker.tools.includes('python')) return undefined;
  const url = database?.url;
  if (!database || !url) return undefined;
  const sockets = await readSocketDirectories((sql) => database.query<Record<string, unknown>>(sql));
  const accepted = await passwordlessLogins(ledgerLogins(url, sockets));
  return accepted.length > 0 ? ledgerExposureReason(accepted) : undefined;
}
