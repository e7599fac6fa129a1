import type { NoetlConfig } from '@noetl/config';

/**
 * Whether the process opens the ledger database: every process but a worker
 * alone that reports to an API (NOETL_SERVER_URL). The API answers all such
 * a worker needs of the ledger (claims, reports, credentials, the ledger's
 * identity), so its pod holds no DATABASE_URL and needs no route to
 * PostgreSQL (issue 25 item 2; docs/design.md "Isolation").
 */
export function opensLedger(config: NoetlConfig): boolean {
  return !(config.server && config.roles.length > 0 && config.roles.every((role) => role === 'worker'));
}

/**
 * The worker app's start check: reporting to no API, a worker runs on the
 * ledger itself and must be told where it is (an embedded PostgreSQL of its
 * own would be a ledger nobody else writes to).
 */
export function assertWorkerReachesLedger(config: NoetlConfig): void {
  if (!config.server && !config.database.url) {
    throw new Error(
      'a worker needs NOETL_SERVER_URL (the API it reports to, the usual setting) or DATABASE_URL (the ledger database, to work on it directly)',
    );
  }
}
