import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApiTestApp, type ApiTestApp } from '../../libs/roles/src/api/testing/api-test-app';
import { NoetlHttpClient } from './noetl-http-client';
import { TEST_ENCRYPTION_KEY } from './test-engine';

export interface E2eApp extends ApiTestApp {
  client: NoetlHttpClient;
  /** The app's private database, for a spec that queries it (e.g. a postgres tool target). */
  databaseUrl: string;
}

/**
 * The whole runtime behind the real Nest API, as `noetl server` runs it: the
 * api, scheduler and worker roles in one process on a private database clone,
 * python enabled, credentials unlocked, a quick sweep (so a timer or a lost
 * notification never holds a spec up for long) and a 1 s shutdown grace (a
 * call a spec left running does not hold its close for the default 30 s).
 * Close it in afterAll.
 */
export async function startE2eApp(env: Record<string, string> = {}): Promise<E2eApp> {
  const api = await startApiTestApp({
    NOETL_ROLES: 'api,scheduler,worker',
    NOETL_PYTHON: 'on',
    NOETL_SWEEP_MS: '100',
    NOETL_SHUTDOWN_GRACE_SECONDS: '1',
    NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...env,
  });
  const url = api.config.database.url?.reveal();
  if (!url) throw new Error('the e2e app has no DATABASE_URL');
  return { ...api, client: new NoetlHttpClient(api.http), databaseUrl: url };
}

const PLAYBOOKS = join(__dirname, '..', 'e2e', 'playbooks');

/** The YAML text of `test/e2e/playbooks/<name>.yaml`. */
export function e2ePlaybook(name: string): string {
  return readFileSync(join(PLAYBOOKS, `${name}.yaml`), 'utf8');
}
