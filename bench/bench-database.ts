import type { NoetlConfig } from '@noetl/config';
import { migrate, startEmbeddedPostgres } from '@noetl/storage';
import { Client } from 'pg';
import { postgresCredentialData, withDatabase } from '../tools/fixtures/src/fixtures-database';

/** Dropped and created again at every run: the engine's ledger and the bench table live in it. */
export const BENCH_DATABASE = 'noetl_bench_pft';

export interface BenchServer {
  /** A URL of the server, on its maintenance database. */
  url: string;
  close(): Promise<void>;
}

export interface BenchDatabase {
  url: string;
  close(): Promise<void>;
}

/**
 * The server of DATABASE_URL, else the embedded PostgreSQL under NOETL_HOME
 * (left running only if it was already).
 */
export async function openBenchServer(config: NoetlConfig): Promise<BenchServer> {
  const embedded = config.database.url ? undefined : await startEmbeddedPostgres(config.home);
  return { url: config.database.url?.reveal() ?? embedded!.url, close: async () => embedded?.stop() };
}

/** Drops `name` on the server of `serverUrl` (refusing the database the URL itself names) and creates it empty; returns its URL. */
export async function recreateDatabase(serverUrl: string, name: string): Promise<string> {
  if (postgresCredentialData(serverUrl).db_name === name) {
    throw new Error(`DATABASE_URL names ${name}, a database the bench drops; point it at another database on that server`);
  }
  await onServer(serverUrl, async (client) => {
    // FORCE: a killed run may still hold connections to it.
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  });
  return withDatabase(serverUrl, name);
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

async function onServer(serverUrl: string, work: (client: Client) => Promise<unknown>): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database `name` (BENCH_DATABASE by default) on the bench server (openBenchServer). */
export async function openBenchDatabase(config: NoetlConfig, name = BENCH_DATABASE): Promise<BenchDatabase> {
  const server = await openBenchServer(config);
  try {
    const url = await recreateDatabase(server.url, name);
    await migrate(url, 'up');
    return { url, close: () => server.close() };
  } catch (error) {
    await server.close();
    throw error;
  }
}
