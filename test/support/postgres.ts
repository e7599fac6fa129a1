import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { Client } from 'pg';

/** The machine's PostgreSQL (STYLE.md "Tests": real services, never skipped). */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
/**
 * The migrated template every suite clones, one per checkout: two checkouts
 * on one machine (say, two branches with different migrations) never swap
 * each other's template away.
 */
export const TEMPLATE_DATABASE = `noetl_test_template_${createHash('sha256')
  .update(resolve(__dirname, '..', '..'))
  .digest('hex')
  .slice(0, 8)}`;
export const POSTGRES_START_COMMAND = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';

/**
 * The tests' playbooks log in to the test services as the cluster superuser, as a developer's do
 * on a laptop, and that cluster also holds the runtime's ledger: by default (issue 25 item 2) the
 * postgres tool refuses a role with that power there. The runtimes the specs start take this,
 * which keeps the ledger database itself refused; a spec of that refusal sets `refuse`.
 * That cluster also trusts loopback, so a worker on it refuses python steps (a step could log
 * in as its superuser with no password): the specs' python steps are trusted, so they allow it;
 * a spec of that refusal sets `refuse`.
 */
export const SUPERUSER_PLAYBOOKS_ENV: Record<string, string> = {
  NOETL_TOOLS_LEDGER_ACCESS: 'database',
  NOETL_PYTHON_LEDGER_ACCESS: 'allow',
};

export function baseDatabaseUrl(): string {
  return process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
}

/** The same server, another database. */
export function databaseUrl(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs `fn` with a client on the base database (the one CREATE/DROP DATABASE is issued from). */
export async function withAdminClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const url = baseDatabaseUrl();
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    const hint = process.env.CI === 'true' ? 'CI must provide it' : 'tests do not skip without it';
    throw new Error(
      `PostgreSQL is unreachable at ${redact(url)} (${String(error)}); ${hint}. Start it with:\n  ${POSTGRES_START_COMMAND}\n` +
        'or point DATABASE_URL at a server where the user may create databases.',
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
