import { randomBytes } from 'node:crypto';
import { SqlState, sqlStateOf } from '../../libs/storage/src/db-errors';
import { TEMPLATE_DATABASE, baseDatabaseUrl, databaseUrl, withAdminClient } from './postgres';
import { waitFor } from './wait-for';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A private, migrated database for one suite: a clone of the template that
 * globalSetup prepared. Drop it in afterAll.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `noetl_t_${randomBytes(6).toString('hex')}`;
  await waitFor(
    () =>
      withAdminClient(async (admin) => {
        try {
          await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
          return true;
        } catch (error) {
          // Another suite cloning at the same instant holds the template for a moment;
          // a concurrent globalSetup swaps it in (drop, then rename) for a moment.
          const state = sqlStateOf(error);
          if (state === SqlState.ObjectInUse || state === SqlState.InvalidCatalogName) return false;
          throw error;
        }
      }),
    { timeoutMs: 15_000, intervalMs: 50, description: `a clone of ${TEMPLATE_DATABASE}` },
  );
  return {
    name,
    url: databaseUrl(baseDatabaseUrl(), name),
    drop: () => withAdminClient(async (admin) => void (await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}

/** An empty database (no schema) for migration specs. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `noetl_t_${randomBytes(6).toString('hex')}`;
  await withAdminClient((admin) => admin.query(`CREATE DATABASE ${name}`));
  return {
    name,
    url: databaseUrl(baseDatabaseUrl(), name),
    drop: () => withAdminClient(async (admin) => void (await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}
