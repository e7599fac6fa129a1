import type { QueryRunner } from 'typeorm';
import { createDataSource, MIGRATIONS_SCHEMA, MIGRATIONS_TABLE } from './data-source';

/** Session advisory lock held around every migration run: "noetlmig" in ASCII. */
export const MIGRATION_LOCK_ID = BigInt('0x6e6f65746c6d6967').toString();

export type MigrationDirection = 'up' | 'down';

/**
 * Applies every pending migration (`up`) or reverts the last applied one
 * (`down`) under a Postgres advisory lock, so two processes booting at once
 * migrate one after the other. Returns the names applied or reverted.
 */
export async function migrate(databaseUrl: string, direction: MigrationDirection): Promise<string[]> {
  // One connection holds the lock, another runs the migrations.
  const dataSource = createDataSource(databaseUrl, { poolSize: 2, applicationName: 'noetl-migrate' });
  await dataSource.initialize();
  const lock = dataSource.createQueryRunner();
  try {
    await lock.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_ID]);
    try {
      if (direction === 'up') {
        const applied = await dataSource.runMigrations({ transaction: 'all' });
        return applied.map((migration) => migration.name);
      }
      const last = await lastAppliedMigration(lock);
      if (!last) return [];
      await dataSource.undoLastMigration({ transaction: 'all' });
      return [last];
    } finally {
      // Destroying the pool below ends the session, which releases the lock anyway.
      await lock.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    }
  } finally {
    await lock.release();
    await dataSource.destroy();
  }
}

async function lastAppliedMigration(runner: QueryRunner): Promise<string | undefined> {
  const table = `${MIGRATIONS_SCHEMA}.${MIGRATIONS_TABLE}`;
  const [exists] = (await runner.query('SELECT to_regclass($1) IS NOT NULL AS present', [table])) as Array<{ present: boolean }>;
  if (!exists?.present) return undefined;
  // The order TypeORM's undoLastMigration uses.
  const [last] = (await runner.query(`SELECT name FROM ${table} ORDER BY id DESC LIMIT 1`)) as Array<{ name: string }>;
  return last?.name;
}
