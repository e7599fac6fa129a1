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
  if (reason) logger.error(`DATABASE_URL can change the ledger behind its triggers: ${reason}; connect the runtime as the runtime role instead (README "Database roles")`);
}
