import { CallError } from '@noetl/dsl';
import { pgConnectionFromData, pgConnectionFromValue, poolKey } from './pg-connection-config';

describe('pgConnectionFromData', () => {
  it("reads NoETL's db_* keys", () => {
    expect(pgConnectionFromData({ db_host: 'h', db_port: '5433', db_user: 'u', db_password: 'p', db_name: 'd' }, 'c')).toEqual({
      host: 'h',
      port: 5433,
      user: 'u',
      password: 'p',
      database: 'd',
    });
  });

  it('reads libpq-style keys and sslmode', () => {
    expect(pgConnectionFromData({ host: 'h', port: 5432, username: 'u', password: 'p', dbname: 'd', sslmode: 'require' }, 'c')).toEqual({
      host: 'h',
      port: 5432,
      user: 'u',
      password: 'p',
      database: 'd',
      ssl: { rejectUnauthorized: false },
    });
    expect(pgConnectionFromData({ host: 'h', sslmode: 'verify-full' }, 'c').ssl).toEqual({ rejectUnauthorized: true });
    expect(pgConnectionFromData({ host: 'h', sslmode: 'disable' }, 'c').ssl).toBe(false);
  });

  it('prefers a dsn or connection_string', () => {
    expect(pgConnectionFromData({ connection_string: ' postgres://u@h/d ', host: 'ignored' }, 'c')).toEqual({
      connectionString: 'postgres://u@h/d',
    });
    expect(pgConnectionFromData({ dsn: 'postgres://h/d' }, 'c')).toEqual({ connectionString: 'postgres://h/d' });
  });

  it('rejects data without a host or dsn, and a bad port, without echoing values', () => {
    for (const data of [
      { user: 'u', password: 'hunter2' },
      { host: 'h', port: 'x', password: 'hunter2' },
    ]) {
      try {
        pgConnectionFromData(data, 'credential "pg"');
        throw new Error('expected a failure');
      } catch (err) {
        expect(err).toBeInstanceOf(CallError);
        expect((err as CallError).info.message).toContain('credential "pg"');
        expect((err as CallError).info.message).not.toContain('hunter2');
      }
    }
  });
});

describe('pgConnectionFromValue', () => {
  it('takes a DSN string or a credential-like object', () => {
    expect(pgConnectionFromValue('postgres://h/d')).toEqual({ connectionString: 'postgres://h/d' });
    expect(pgConnectionFromValue({ db_host: 'h' })).toEqual({ host: 'h' });
    expect(() => pgConnectionFromValue(42)).toThrow(CallError);
  });
});

describe('poolKey', () => {
  it('is the same for the same config in any key order, different otherwise, and hides the password', () => {
    const a = poolKey({ host: 'h', user: 'u', password: 'hunter2' });
    expect(poolKey({ password: 'hunter2', user: 'u', host: 'h' })).toBe(a);
    expect(poolKey({ host: 'h', user: 'u', password: 'other' })).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });
});
