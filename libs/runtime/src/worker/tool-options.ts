import type { NoetlConfig } from '@noetl/config';
import type { DatabaseIdentity, DefaultToolsOptions } from '@noetl/tools';

const MiB = 1024 * 1024;

/**
 * The tools a worker runs user code with, limited as the configuration says (README
 * "Isolation"). Unless `NOETL_TOOLS_LEDGER_ACCESS=allow`, postgres steps are refused the
 * runtime's own database, and (by default, `refuse`) its cluster to a role with power over it:
 * `ledgerIdentity` tells what that database is, as its server sees it (read on the ledger's
 * pool, or asked of the API by a worker that holds no connection to it). `pythonRefusal`, when
 * set, refuses every python step (`pythonLedgerRefusal`).
 */
export function workerToolOptions(
  config: NoetlConfig,
  ledgerIdentity: () => Promise<DatabaseIdentity>,
  pythonRefusal?: string,
): DefaultToolsOptions {
  const { javascript, python, http, ledgerAccess } = config.tools;
  return {
    postgres:
      ledgerAccess === 'allow'
        ? {}
        : {
            protectedDatabase: {
              identity: ledgerIdentity,
              reason: "it is this runtime's own ledger database (NOETL_TOOLS_LEDGER_ACCESS=allow permits it)",
              ...(ledgerAccess === 'refuse'
                ? { cluster: { hint: 'use a role without that power; NOETL_TOOLS_LEDGER_ACCESS=database permits it' } }
                : {}),
            },
          },
    javascript: {
      ...(javascript.threads !== undefined ? { threads: javascript.threads } : {}),
      memoryLimitBytes: javascript.memoryMb * MiB,
      maxTimeoutSeconds: javascript.maxTimeoutSeconds,
    },
    python: {
      user: python.user,
      limits: { addressSpaceBytes: python.memoryMb * MiB, fileBytes: python.fileMb * MiB },
      maxTimeoutSeconds: python.maxTimeoutSeconds,
      ...(pythonRefusal !== undefined ? { refusedBecause: pythonRefusal } : {}),
    },
    http: { maxTimeoutSeconds: http.maxTimeoutSeconds },
  };
}
