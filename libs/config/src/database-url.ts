/**
 * A PostgreSQL URL as libpq reads it, with several hosts
 * (`postgres://user@h1:5432,h2:5433/db?target_session_attrs=read-write`, issue 29):
 * the hosts are tried in order, and with `target_session_attrs=read-write`
 * (or `primary`) a host whose session is read-only (a standby) is skipped.
 *
 * node-postgres parses one host only (pg-connection-string goes through WHATWG
 * `URL`, which rejects `h1:5432,h2:5433`), and no maintained package adds the
 * rest (brianc/node-postgres#3643 is an open pull request), so the list is
 * parsed here, once, and every connection the runtime opens from
 * DATABASE_URL goes through `forHost` to a single-host URL pg does read.
 */
export interface DatabaseHost {
  /** As written: a name, an IPv4 address, or an IPv6 address without its brackets. */
  host: string;
  port: number;
}

/** What the runtime honours of libpq's values: it writes, so only these make sense for it. */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'primary'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface DatabaseUrl {
  hosts: DatabaseHost[];
  targetSessionAttrs: TargetSessionAttrs;
  /** More than one host, or a session attribute to check: connections go through the multi-host connect. */
  readonly multiHost: boolean;
  /** The same URL for one host, without `target_session_attrs`: what pg (and TypeORM) parse. */
  forHost(host: DatabaseHost): string;
}

export class DatabaseUrlError extends Error {
  override readonly name = 'DatabaseUrlError';
}

const DEFAULT_PORT = 5432;
const SHAPE = /^(?<scheme>postgres(?:ql)?:)\/\/(?:(?<userinfo>[^@/?#]*)@)?(?<hostList>[^/?#]*)(?<path>[^?#]*)(?<query>\?[^#]*)?(#.*)?$/;

/** Parses a PostgreSQL URL with one or several hosts; throws DatabaseUrlError (never echoing the password) when it is not one. */
export function parseDatabaseUrl(raw: string): DatabaseUrl {
  const groups = SHAPE.exec(raw.trim())?.groups;
  if (!groups) throw new DatabaseUrlError('is not a postgres:// or postgresql:// URL');
  const { scheme = '', userinfo, hostList = '', path = '', query = '' } = groups;
  // One host is kept as written: it may be empty (libpq's `postgres://u@/db?host=/var/run/postgresql`, a unix socket).
  const single = !hostList.includes(',');
  const hosts = hostList.split(',').map((text) => parseHost(text, single));
  const params = new URLSearchParams(query.slice(1));
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new DatabaseUrlError(`target_session_attrs must be one of ${TARGET_SESSION_ATTRS.join(', ')}, got "${attrs}"`);
  }
  params.delete('target_session_attrs');
  const rest = params.toString();
  const prefix = `${scheme}//${userinfo !== undefined ? `${userinfo}@` : ''}`;
  const suffix = `${path}${rest ? `?${rest}` : ''}`;
  return {
    hosts,
    targetSessionAttrs: attrs as TargetSessionAttrs,
    multiHost: hosts.length > 1 || attrs !== 'any',
    forHost: (host) => `${prefix}${single ? hostList : `${host.host.includes(':') ? `[${host.host}]` : host.host}:${host.port}`}${suffix}`,
  };
}

function parseHost(text: string, allowEmpty: boolean): DatabaseHost {
  const bracketed = /^\[([^\]]+)\](?::(\d*))?$/.exec(text);
  const plain = /^([^:[\]]*)(?::(\d*))?$/.exec(text);
  const [, host, port] = bracketed ?? plain ?? [];
  if (host === undefined || (host === '' && !allowEmpty)) throw new DatabaseUrlError('has an empty or malformed host');
  if (port === undefined || port === '') return { host, port: DEFAULT_PORT };
  const number = Number(port);
  if (!Number.isInteger(number) || number < 1 || number > 65535) throw new DatabaseUrlError(`has a port out of range: ${port}`);
  return { host, port: number };
}
