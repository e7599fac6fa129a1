import { loadConfig, type NoetlConfig, type Role } from '../../libs/config/src';
import { Engine } from '../../libs/runtime/src';
import { Database } from '../../libs/storage/src';
import { SUPERUSER_PLAYBOOKS_ENV } from './postgres';
import { createTestDatabase, type TestDatabase } from './test-database';

/** A 32-byte key for specs that store credentials. */
export const TEST_ENCRYPTION_KEY = '11'.repeat(32);

export interface TestEngine {
  engine: Engine;
  database: Database;
  testDatabase: TestDatabase;
  config: NoetlConfig;
  close(): Promise<void>;
}

export interface TestEngineOptions {
  roles?: Role[];
  /** Extra environment, e.g. `{NOETL_LEASE_SECONDS: '2'}`. */
  env?: Record<string, string>;
}

/**
 * An engine on a private database clone, with the in-process bus and a quick
 * sweep (so a spec never waits long for the safety net). Close it in afterAll.
 */
export async function startTestEngine(options: TestEngineOptions = {}): Promise<TestEngine> {
  const testDatabase = await createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: testDatabase.url,
    LOG_LEVEL: 'silent',
    NOETL_SWEEP_MS: '100',
    NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...SUPERUSER_PLAYBOOKS_ENV,
    ...options.env,
  });
  const database = await Database.connect(testDatabase.url, { sessions: config.database.sessions });
  const engine = await Engine.start({ config, database, roles: options.roles ?? ['scheduler', 'worker'] });
  return {
    engine,
    database,
    testDatabase,
    config,
    close: async () => {
      await engine.stop();
      await database.close();
      await testDatabase.drop();
    },
  };
}
