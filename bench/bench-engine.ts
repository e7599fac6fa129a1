import { randomBytes } from 'node:crypto';
import { Secret, type NoetlConfig } from '@noetl/config';
import { Engine } from '@noetl/runtime';
import { Database } from '@noetl/storage';

export interface BenchEngine {
  engine: Engine;
  /** Its database, whose round-trip counts the benches break down per step or frame. */
  database: Database;
  close(): Promise<void>;
}

/**
 * Scheduler and worker in this process on the (migrated) bench database at
 * `url`, with `concurrency` worker slots.
 */
export async function startBenchEngine(baseConfig: NoetlConfig, url: string, concurrency: number): Promise<BenchEngine> {
  // A key of this run's own: the bench database, and any credential in it, is dropped at the next run anyway.
  const config: NoetlConfig = {
    ...baseConfig,
    database: { ...baseConfig.database, url: new Secret(url) },
    encryptionKey: new Secret(randomBytes(32).toString('hex')),
    worker: { ...baseConfig.worker, concurrency },
    // A bench's playbook may write to the engine's own database, on purpose: one database per run to recreate.
    // Its python steps (none today) are the bench's own: no probe of the ledger's cluster, and no refusal logged.
    tools: { ...baseConfig.tools, ledgerAccess: 'allow', python: { ...baseConfig.tools.python, ledgerAccess: 'allow' } },
  };
  const database = await Database.connect(url, { sessions: config.database.sessions });
  let engine: Engine;
  try {
    engine = await Engine.start({ config, database, roles: ['scheduler', 'worker'] });
  } catch (error) {
    await database.close();
    throw error;
  }
  return {
    engine,
    database,
    close: async () => {
      await engine.stop();
      await database.close();
    },
  };
}
