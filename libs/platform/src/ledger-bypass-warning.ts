import { ledgerBypass, type Database } from '@noetl/storage';
import type { Logger } from 'pino';

/**
 * At every start of a server: an error-level line when its database role
 * could change the ledger behind the append-only triggers (issue 25 item 1),
 * since nothing of the runtime needs that power and anyone who gets its
 * DATABASE_URL gets it too.
 */
export async function warnIfLedgerBypassable(database: Database, logger: Logger): Promise<void> {
  const reason = await ledgerBypass(database);
  if (reason)
    logger.error(
      `DATABASE_URL can change the ledger behind its triggers: ${reason}; let the runtime work as the runtime role instead (NOETL_DB_RUNTIME_ROLE, default noetl_app: the migrations make it when their login may create roles, and a login that may become it switches to it; README "Database roles")`,
    );
}
