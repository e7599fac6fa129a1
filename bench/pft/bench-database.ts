import type { NoetlConfig } from '@noetl/config';
import { migrate, startEmbeddedPostgres } from '@noetl/storage';
import { Client } from 'pg';
import { postgresCredentialData, withDatabase } from '../../tools/fixtures/src/fixtures-database';

/** Dropped and created again at every run: the engine's ledger and the bench table live in it. */
export const BENCH_DATABASE = 'noetl_bench_pft';

export interface BenchDatabase {
  url: string;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database `name` (BENCH_DATABASE by default) on the server
 * of DATABASE_URL, else on the embedded PostgreSQL under NOETL_HOME (left
 * running only if it was already).
 */
export async function openBenchDatabase(config: NoetlConfig, name = BENCH_DATABASE): Promise<BenchDatabase> {
  const embedded = config.database.url ? undefined : await startEmbeddedPostgres(config.home);
  const serverUrl = config.database.url?.reveal() ?? embedded!.url;
  try {
    if (postgresCredentialData(serverUrl).db_name === name) {
      throw new Error(`DATABASE_URL names ${name}, the database each run drops; point it at another database on that server`);
    }
    const client = new Client({ connectionString: serverUrl });
    await client.connect();
    try {
      // FORCE: a killed run may still hold connections to it.
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    const url = withDatabase(serverUrl, name);
    await migrate(url, 'up');
    return { url, close: async () => embedded?.stop() };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
