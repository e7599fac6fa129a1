import { DatabaseUrlError, parseDatabaseUrl } from './database-url';
import { loadConfig } from './config';
import { ConfigError } from './config-error';

describe('parseDatabaseUrl', () => {
  it('reads one host as one, with the default port and no session check', () => {
    const url = parseDatabaseUrl('postgres://u:p@db/noetl');
    expect(url.hosts).toEqual([{ host: 'db', port: 5432 }]);
    expect(url.targetSessionAttrs).toBe('any');
    expect(url.multiHost).toBe(false);
    // One host stays as written.
    expect(url.forHost(url.hosts[0]!)).toBe('postgres://u:p@db/noetl');
  });

  it('keeps an empty host (a unix socket given as ?host=)', () => {
    const url = parseDatabaseUrl('postgres://u@/noetl?host=/var/run/postgresql');
    expect(url.multiHost).toBe(false);
    expect(url.forHost(url.hosts[0]!)).toBe('postgres://u@/noetl?host=%2Fvar%2Frun%2Fpostgresql');
  });

  it('reads several hosts in order, each with its port, and target_session_attrs', () => {
    const url = parseDatabaseUrl(
      'postgresql://noetl:s%40cret@h1:5433,h2,[::1]:6000/ledger?target_session_attrs=read-write&sslmode=disable',
    );
    expect(url.hosts).toEqual([
      { host: 'h1', port: 5433 },
      { host: 'h2', port: 5432 },
      { host: '::1', port: 6000 },
    ]);
    expect(url.targetSessionAttrs).toBe('read-write');
    expect(url.multiHost).toBe(true);
    // One host's URL, as pg reads it: credentials and the other parameters kept, target_session_attrs gone.
    expect(url.hosts.map((h) => url.forHost(h))).toEqual([
      'postgresql://noetl:s%40cret@h1:5433/ledger?sslmode=disable',
      'postgresql://noetl:s%40cret@h2:5432/ledger?sslmode=disable',
      'postgresql://noetl:s%40cret@[::1]:6000/ledger?sslmode=disable',
    ]);
  });

  it('counts one host with a session check as multi-host (the check runs on connect)', () => {
    expect(parseDatabaseUrl('postgres://u@db/x?target_session_attrs=primary').multiHost).toBe(true);
  });

  it.each([
    ['mysql://u@h/x', 'is not a postgres:// or postgresql:// URL'],
    ['postgres://u@h1,,h2/x', 'has an empty or malformed host'],
    ['postgres://u@h1:99999/x', 'has a port out of range: 99999'],
    ['postgres://u@h1,h2/x?target_session_attrs=standby', 'target_session_attrs must be one of any, read-write, primary, got "standby"'],
  ])('refuses %s', (raw, message) => {
    expect(() => parseDatabaseUrl(raw)).toThrow(new DatabaseUrlError(message));
  });

  it('never puts the password in an error', () => {
    expect(() => parseDatabaseUrl('postgres://u:hunter2@h1:0,h2/x')).toThrow(/^has a port out of range: 0$/);
  });
});

describe('DATABASE_URL in the configuration', () => {
  it('accepts the multi-host form', () => {
    const raw = 'postgres://noetl:pw@pg-a:5432,pg-b:5432/noetl?target_session_attrs=read-write';
    expect(loadConfig({ DATABASE_URL: raw }).database.url?.reveal()).toBe(raw);
  });

  it.each([
    [
      'postgres://u@h1,h2/x?target_session_attrs=standby',
      'DATABASE_URL target_session_attrs must be one of any, read-write, primary, got "standby"',
    ],
    ['postgres://u@h1:5432,/x', 'DATABASE_URL has an empty or malformed host'],
    ['mysql://x', 'DATABASE_URL must use postgres:// or postgresql://, got mysql://'],
  ])('refuses %s', (raw, message) => {
    expect(() => loadConfig({ DATABASE_URL: raw })).toThrow(new ConfigError(message));
  });
});
