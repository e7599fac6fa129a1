import { ledgerExposureReason, ledgerLogins, readSocketDirectories } from './ledger-exposure';

describe('ledgerLogins', () => {
  it("tries the DSN's address as its user and as postgres, never with its password", () => {
    expect(ledgerLogins('postgres://noetl:secret@db.internal:6432/ledger', ['/var/run/postgresql'])).toEqual([
      { host: 'db.internal', port: 6432, database: 'ledger', user: 'noetl' },
      { host: 'db.internal', port: 6432, database: 'ledger', user: 'postgres' },
    ]);
  });

  it("adds the server's unix sockets when it runs on this host, skipping abstract ones", () => {
    const hosts = (url: string) => [
      ...new Set(ledgerLogins(url, ['/var/run/postgresql', ' /tmp', '@abstract']).map((login) => login.host)),
    ];
    expect(hosts('postgres://postgres@127.0.0.1/noetl')).toEqual(['127.0.0.1', '/var/run/postgresql', '/tmp']);
    expect(hosts('postgres://u@localhost:5432/noetl')).toEqual(['localhost', '/var/run/postgresql', '/tmp']);
    expect(hosts('postgres://u@[::1]:5432/noetl')).toEqual(['::1', '/var/run/postgresql', '/tmp']);
    expect(hosts('postgres://u@/noetl?host=/var/run/postgresql')).toEqual(['/var/run/postgresql', '/tmp']);
  });

  it('tries every host of a multi-host DSN (any may be the primary after a failover)', () => {
    expect(ledgerLogins('postgres://noetl:secret@pg-a:5433,pg-b/ledger?target_session_attrs=read-write', [])).toEqual([
      { host: 'pg-a', port: 5433, database: 'ledger', user: 'noetl' },
      { host: 'pg-a', port: 5433, database: 'ledger', user: 'postgres' },
      { host: 'pg-b', port: 5432, database: 'ledger', user: 'noetl' },
      { host: 'pg-b', port: 5432, database: 'ledger', user: 'postgres' },
    ]);
  });

  it('defaults the port to 5432 and the database to the user', () => {
    expect(ledgerLogins('postgres://postgres@10.0.0.5', [])).toEqual([
      { host: '10.0.0.5', port: 5432, database: 'postgres', user: 'postgres' },
    ]);
  });
});

describe('ledgerExposureReason', () => {
  it('names the logins, both ways out and the unsafe setting', () => {
    const reason = ledgerExposureReason(['postgres@127.0.0.1:5432']);
    expect(reason).toContain("accepts a login without a password from this worker's host (postgres@127.0.0.1:5432)");
    expect(reason).toContain('pg_hba.conf demand a password');
    expect(reason).toContain('NOETL_SERVER_URL) without DATABASE_URL');
    expect(reason).toContain('NOETL_PYTHON_LEDGER_ACCESS=allow runs python here anyway (unsafe)');
  });
});

describe('readSocketDirectories', () => {
  it("reads the server's setting, and falls back to the usual directories when the role may not", async () => {
    expect(await readSocketDirectories(() => Promise.resolve([{ dirs: '/var/run/postgresql, /tmp' }]))).toEqual([
      '/var/run/postgresql',
      ' /tmp',
    ]);
    expect(await readSocketDirectories(() => Promise.resolve([{ dirs: '' }]))).toEqual([]);
    expect(
      await readSocketDirectories(() => Promise.reject(new Error('must be superuser or have privileges of pg_read_all_settings'))),
    ).toEqual(['/tmp', '/var/run/postgresql']);
  });
});
