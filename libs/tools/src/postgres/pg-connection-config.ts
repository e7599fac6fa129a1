import { createHash } from 'node:crypto';
import { isRecord } from '../shared/read-config';
import { invalidConfig } from '../shared/tool-errors';

/** What a pg.Pool needs to reach a database. Holds a password: never log it. */
export interface PgConnectionConfig {
  connectionString?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  ssl?: boolean | { rejectUnauthorized: boolean };
}

const DSN_KEYS = ['dsn', 'connection_string', 'connectionString', 'url', 'uri'] as const;

/**
 * Credential data -> connection config. Accepts NoETL's keys (`db_host`, `db_port`, `db_user`,
 * `db_password`, `db_name`), libpq-like ones (`host`, `port`, `user`/`username`, `password`,
 * `database`/`dbname`), or a DSN (`dsn`, `connection_string`, ...); `sslmode` (or `db_sslmode`)
 * maps to pg's `ssl`. `label` names the source in messages; values never appear in them.
 */
export function pgConnectionFromData(data: Record<string, unknown>, label: string): PgConnectionConfig {
  for (const key of DSN_KEYS) {
    const dsn = data[key];
    if (typeof dsn === 'string' && dsn.trim() !== '') return { connectionString: dsn.trim() };
  }
  const host = pickString(data, ['db_host', 'host', 'hostname']);
  if (host === undefined) {
    throw invalidConfig('postgres', `${label} has neither a host (db_host/host) nor a dsn`);
  }
  const config: PgConnectionConfig = { host };
  const port = pick(data, ['db_port', 'port']);
  if (port !== undefined) {
    const n = typeof port === 'number' ? port : Number(port);
    if (!Number.isInteger(n) || n <= 0 || n > 65535) throw invalidConfig('postgres', `${label} has an invalid port`);
    config.port = n;
  }
  const user = pickString(data, ['db_user', 'user', 'username']);
  if (user !== undefined) config.user = user;
  const password = pick(data, ['db_password', 'password']);
  if (password !== undefined) config.password = String(password);
  const database = pickString(data, ['db_name', 'database', 'dbname', 'db']);
  if (database !== undefined) config.database = database;
  const ssl = sslFrom(pick(data, ['db_sslmode', 'sslmode', 'ssl_mode', 'ssl']));
  if (ssl !== undefined) config.ssl = ssl;
  return config;
}

/** `connection` key: a DSN string, or an object read like credential data. */
export function pgConnectionFromValue(value: unknown): PgConnectionConfig {
  if (typeof value === 'string' && value.trim() !== '') return { connectionString: value.trim() };
  if (isRecord(value)) return pgConnectionFromData(value, 'connection');
  throw invalidConfig('postgres', 'connection must be a DSN string or an object');
}

/** A stable cache key for a connection config: a hash, so no password is kept in clear as a key. */
export function poolKey(config: PgConnectionConfig): string {
  const ordered = Object.keys(config)
    .sort()
    .map((k) => [k, config[k as keyof PgConnectionConfig]]);
  return createHash('sha256').update(JSON.stringify(ordered)).digest('hex');
}

function pick(data: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const key of keys) {
    const value = data[key];
    if (value !== undefined && value !== null && value !== '') return value;
  }
  return undefined;
}

function pickString(data: Record<string, unknown>, keys: readonly string[]): string | undefined {
  const value = pick(data, keys);
  return value === undefined ? undefined : String(value);
}

function sslFrom(value: unknown): PgConnectionConfig['ssl'] | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  switch (value.toLowerCase()) {
    case 'disable':
    case 'allow':
    case 'prefer':
    case 'false':
      return false;
    case 'require':
    case 'true':
      return { rejectUnauthorized: false };
    case 'verify-ca':
    case 'verify-full':
      return { rejectUnauthorized: true };
    default:
      return undefined;
  }
}
