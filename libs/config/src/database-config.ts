import { ConfigError } from './config-error';
import { DatabaseUrlError, parseDatabaseUrl, type DatabaseUrl } from './database-url';
import { integer, url, type Env } from './env-values';
import type { Secret } from './secret';

/**
 * Absent url: the CLI starts an embedded PostgreSQL under `home`.
 * `sessions`: what every session of the runtime's pool is bounded by
 * (README "Configuration"): a transaction left idle is ended by the server
 * (a stopped process then holds no lock for long), a lock waited for
 * longer fails the statement instead of stalling it, and a statement not
 * answered within `queryTimeoutMs` (0: no limit) fails on the client's side
 * and its connection is closed (a partition that swallows packets).
 */
export interface DatabaseConfig {
  url?: Secret;
  sessions: { idleInTransactionMs: number; lockTimeoutMs: number; queryTimeoutMs: number };
  /**
   * The role the runtime's pool works as (`NOETL_DB_RUNTIME_ROLE`, default `noetl_app`): a login
   * that may become it (a superuser, the embedded server's) connects with `role` set to it, so the
   * runtime holds DML on `noetl` and nothing more. Absent (`none`): the login's own role.
   */
  runtimeRole?: string;
}

/**
 * A PostgreSQL URL, with one host or several (`h1:5432,h2:5433`, libpq's form)
 * and `target_session_attrs`: parsed by `parseDatabaseUrl`, each host's URL
 * checked as a URL.
 */
export function postgresUrl(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let parsed: DatabaseUrl;
  try {
    parsed = parseDatabaseUrl(raw);
  } catch (error) {
    if (!(error instanceof DatabaseUrlError)) throw error;
    // A URL of another scheme gets url()'s message, which names the schemes allowed.
    if (!/^postgres(?:ql)?:/i.test(raw)) return url(env, name, ['postgres:', 'postgresql:']);
    throw new ConfigError(`${name} ${error.message}`);
  }
  for (const host of parsed.hosts) {
    try {
      new URL(parsed.forHost(host));
    } catch {
      throw new ConfigError(`${name} is not a valid URL`);
    }
  }
  return raw;
}

/** `NOETL_DB_RUNTIME_ROLE`: a plain role name (it travels in the connection's startup options unquoted), or `none`. */
export function runtimeRole(env: Env): { runtimeRole?: string } {
  const raw = env.NOETL_DB_RUNTIME_ROLE?.trim() || 'noetl_app';
  if (raw === 'none') return {};
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) {
    throw new ConfigError(`NOETL_DB_RUNTIME_ROLE must be a lower-case role name (letters, digits, _) or none, got "${raw}"`);
  }
  return { runtimeRole: raw };
}

/** `NOETL_DB_QUERY_TIMEOUT_MS`: 0 (no limit), or at least 1 s, so that no statement of the runtime's is cut short by a typo. */
export function queryTimeout(env: Env): number {
  const ms = integer(env, 'NOETL_DB_QUERY_TIMEOUT_MS', 60_000, 0, 3_600_000);
  if (ms > 0 && ms < 1_000) throw new ConfigError(`NOETL_DB_QUERY_TIMEOUT_MS must be 0 (no limit) or between 1000 and 3600000, got ${ms}`);
  return ms;
}
