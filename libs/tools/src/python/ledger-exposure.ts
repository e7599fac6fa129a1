import { isIP } from 'node:net';
import { parseDatabaseUrl } from '@noetl/config';
import { CallError } from '@noetl/dsl';
import { Client } from 'pg';
import { parse } from 'pg-connection-string';
import type { RowsOf } from '../postgres/database-identity';

/**
 * A login a python step could try on the ledger's cluster from this host (issue 25 item 2):
 * `host` is a name, an address or a unix socket directory.
 */
export interface LedgerLogin {
  host: string;
  port: number;
  database: string;
  user: string;
}

export const LEDGER_EXPOSED = 'LEDGER_EXPOSED';

const DEFAULT_PORT = 5432;
const SUPERUSER = 'postgres';

/**
 * The logins to try: the ledger's DSN address, and when that server is on this host, its unix
 * sockets too (`socketDirectories`, as the server reports them), each as the DSN's user and as
 * `postgres`. No password is taken from the DSN: the question is what a step gets without one.
 */
export function ledgerLogins(url: string, socketDirectories: readonly string[]): LedgerLogin[] {
  // A multi-host DATABASE_URL (issue 29): every host of the list may be the primary one day.
  const parsed = parseDatabaseUrl(url);
  const logins = parsed.hosts.flatMap((host) => hostLogins(parsed.forHost(host), socketDirectories));
  return logins.filter(
    (login, i) => logins.findIndex((l) => l.host === login.host && l.port === login.port && l.user === login.user) === i,
  );
}

function hostLogins(url: string, socketDirectories: readonly string[]): LedgerLogin[] {
  const dsn = parse(url);
  const host = (dsn.host || 'localhost').replace(/^\[(.*)\]$/, '$1');
  const port = Number(dsn.port || DEFAULT_PORT);
  const user = dsn.user || SUPERUSER;
  const database = dsn.database || user;
  // An abstract socket (`@name`) has no path a pg client can open.
  const sockets = onThisHost(host) ? socketDirectories.map((dir) => dir.trim()).filter((dir) => dir.startsWith('/')) : [];
  const hosts = [...new Set([host, ...sockets])];
  const users = [...new Set([user, SUPERUSER])];
  return hosts.flatMap((h) => users.map((u) => ({ host: h, port, database, user: u })));
}

function onThisHost(host: string): boolean {
  if (host.startsWith('/') || host === 'localhost') return true;
  return (isIP(host) === 4 && host.startsWith('127.')) || host === '::1';
}

/** Where PostgreSQL puts its sockets unless told otherwise: libpq's default, and Debian's and Red Hat's. */
const USUAL_SOCKET_DIRECTORIES = ['/tmp', '/var/run/postgresql'];

/**
 * `unix_socket_directories` of the server `rowsOf` speaks to (empty where it listens on none); the
 * usual directories when the role may not read it (only superusers and pg_read_all_settings may,
 * and the runtime's pool works as an ordinary role): a directory with no socket is tried in vain.
 */
export async function readSocketDirectories(rowsOf: RowsOf): Promise<string[]> {
  const row = await rowsOf("SELECT current_setting('unix_socket_directories') AS dirs").then(
    ([first]) => first,
    () => undefined,
  );
  if (typeof row?.dirs !== 'string') return USUAL_SOCKET_DIRECTORIES;
  return row.dirs.split(',').filter((dir) => dir.trim() !== '');
}

/**
 * Whether the cluster lets `login` in with no password (pg_hba `trust`, or `peer` for this
 * process's user): the server asking for one ends the attempt, as does any refusal or the timeout.
 */
async function acceptsWithoutPassword(login: LedgerLogin, timeoutMs: number): Promise<boolean> {
  const client = new Client({
    ...login,
    // Called only when the server asks for a password; a function keeps pg from reading ~/.pgpass.
    password: () => Promise.reject(new Error('a password was asked for')),
    connectionTimeoutMillis: timeoutMs,
    application_name: 'noetl-ledger-probe',
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The logins the cluster accepts without a password, as `user@host:port`. */
export async function passwordlessLogins(logins: readonly LedgerLogin[], timeoutMs = 3000): Promise<string[]> {
  const accepted = await Promise.all(logins.map((login) => acceptsWithoutPassword(login, timeoutMs)));
  return logins.filter((_, i) => accepted[i]).map(({ user, host, port }) => `${user}@${host}:${port}`);
}

/** Why python steps are refused on a worker whose ledger's cluster took `logins` without a password. */
export function ledgerExposureReason(logins: readonly string[]): string {
  return (
    `the ledger's PostgreSQL cluster accepts a login without a password from this worker's host (${logins.join(', ')}), ` +
    'so a python step could rewrite the ledger: make its pg_hba.conf demand a password for this host, ' +
    'or run the worker on the API (NOETL_SERVER_URL) without DATABASE_URL; NOETL_PYTHON_LEDGER_ACCESS=allow runs python here anyway (unsafe)'
  );
}

export function ledgerExposedError(reason: string): CallError {
  return new CallError({ kind: 'auth', message: `python: refused on this worker: ${reason}`, retryable: false, code: LEDGER_EXPOSED });
}
