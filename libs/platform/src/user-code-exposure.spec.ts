import { loadConfig } from '@noetl/config';
import { userCodeExposure } from './user-code-exposure';

describe('userCodeExposure', () => {
  it('warns a worker not run as root that python steps can read its DATABASE_URL, or the embedded password', () => {
    expect(userCodeExposure(loadConfig({ DATABASE_URL: 'postgres://u@db/noetl' }), 1000)).toContain(
      "python steps run as this process's own user (uid 1000, not root), so they can read DATABASE_URL",
    );
    expect(userCodeExposure(loadConfig({ NOETL_HOME: '/home/me/.noetl' }), 1000)).toContain(
      "can read the embedded PostgreSQL's password (/home/me/.noetl)",
    );
  });

  it('says nothing for a root worker (steps drop to NOETL_PYTHON_USER), without python, or without the worker role', () => {
    expect(userCodeExposure(loadConfig({}), 0)).toBeUndefined();
    expect(userCodeExposure(loadConfig({ NOETL_PYTHON: 'off' }), 1000)).toBeUndefined();
    expect(userCodeExposure(loadConfig({ NOETL_ROLES: 'api,scheduler' }), 1000)).toBeUndefined();
  });

  it('says nothing for a worker on the API that holds no DATABASE_URL, and still warns one that holds it', () => {
    const onApi = { NOETL_ROLES: 'worker', NOETL_SERVER_URL: 'http://api:8082' };
    expect(userCodeExposure(loadConfig(onApi), 1000)).toBeUndefined();
    expect(userCodeExposure(loadConfig({ ...onApi, DATABASE_URL: 'postgres://u@db/noetl' }), 1000)).toContain(
      'so they can read DATABASE_URL',
    );
  });
});
