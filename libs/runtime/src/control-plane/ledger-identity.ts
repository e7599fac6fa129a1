import type { Queryable } from '@noetl/storage';
import { readDatabaseIdentity, type DatabaseIdentity } from '@noetl/tools';

/** Which database the ledger is, as its own server says (postgres steps are refused it: workerToolOptions). */
export function readLedgerIdentity(ledger: Queryable): Promise<DatabaseIdentity> {
  return readDatabaseIdentity((sql) => ledger.query<Record<string, unknown>>(sql));
}
