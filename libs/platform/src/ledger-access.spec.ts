import { loadConfig } from '@noetl/config';
import { assertWorkerReachesLedger, opensLedger } from './ledger-access';

describe('opensLedger', () => {
  it('opens no ledger database in a worker alone that reports to an API, even when DATABASE_URL is set', () => {
    expect(opensLedger(loadConfig({ NOETL_ROLES: 'worker', NOETL_SERVER_URL: 'http://api:8082' }))).toBe(false);
    expect(
      opensLedger(loadConfig({ NOETL_ROLES: 'worker', NOETL_SERVER_URL: 'http://api:8082', DATABASE_URL: 'postgres://u@db/noetl' })),
    ).toBe(false);
  });

  it('opens it in every other process: any other role beside the worker, or a worker reporting to no API', () => {
    expect(opensLedger(loadConfig({ NOETL_ROLES: 'worker,scheduler', NOETL_SERVER_URL: 'http://api:8082' }))).toBe(true);
    expect(opensLedger(loadConfig({ NOETL_ROLES: 'worker', DATABASE_URL: 'postgres://u@db/noetl' }))).toBe(true);
    expect(opensLedger(loadConfig({ NOETL_ROLES: 'api', NOETL_SERVER_URL: 'http://api:8082' }))).toBe(true);
    expect(opensLedger(loadConfig({}))).toBe(true);
  });
});

describe('assertWorkerReachesLedger', () => {
  it('refuses a worker that has neither an API to report to nor a ledger database, naming both settings', () => {
    expect(() => assertWorkerReachesLedger(loadConfig({ NOETL_ROLES: 'worker' }))).toThrow(/NOETL_SERVER_URL .* or DATABASE_URL/);
  });

  it('lets a worker start with either', () => {
    expect(() => assertWorkerReachesLedger(loadConfig({ NOETL_ROLES: 'worker', NOETL_SERVER_URL: 'http://api:8082' }))).not.toThrow();
    expect(() => assertWorkerReachesLedger(loadConfig({ NOETL_ROLES: 'worker', DATABASE_URL: 'postgres://u@db/noetl' }))).not.toThrow();
  });
});
