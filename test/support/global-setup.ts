import { randomBytes } from 'node:crypto';
import { migrate } from '../../libs/storage/src/migrate';
import { TEMPLATE_DATABASE, baseDatabaseUrl, databaseUrl, withAdminClient } from './postgres';

/**
 * Jest globalSetup of the int and e2e tiers: migrates a fresh database once and
 * installs it as the checkout's template (TEMPLATE_DATABASE), which every suite clones
 * (`createTestDatabase`). It is built under a temporary name and swapped in at
 * the end, so the template is never half migrated. Throws when PostgreSQL is
 * unreachable: tests must not silently skip.
 *
 * Imports are relative: Jest loads globalSetup outside the module mapper.
 */
export default async function globalSetup(): Promise<void> {
  const building = `${TEMPLATE_DATABASE}_${randomBytes(4).toString('hex')}`;
  await withAdminClient((admin) => admin.query(`CREATE DATABASE ${building}`));
  try {
    await migrate(databaseUrl(baseDatabaseUrl(), building), 'up');
    await withAdminClient(async (admin) => {
      await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${TEMPLATE_DATABASE}`);
    });
  } catch (error) {
    await withAdminClient((admin) => admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`)).catch(() => undefined);
    throw error;
  }
}
