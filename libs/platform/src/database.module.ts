import { Global, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { Database, migrate, runtimeRoleFor, startEmbeddedPostgres, type EmbeddedPostgres } from '@noetl/storage';
import { NOETL_CONFIG } from './config.module';

/**
 * The process's connection to the ledger database. Without DATABASE_URL it
 * starts the embedded PostgreSQL under NOETL_HOME (DESIGN.md "Embedded
 * default"); either way it applies pending migrations (under their advisory
 * lock) before anything else touches the schema, and stops cleanly. The
 * migrations run as the login; the pool then works as the runtime role
 * (NOETL_DB_RUNTIME_ROLE) when the login may become it, so the runtime has no
 * power over the ledger's triggers even when given a superuser's URL.
 */
@Injectable()
export class DatabaseConnection implements OnApplicationShutdown {
  private constructor(
    readonly database: Database,
    readonly url: string,
    private readonly embedded?: EmbeddedPostgres,
  ) {}

  static async open(config: NoetlConfig): Promise<DatabaseConnection> {
    const embedded = config.database.url ? undefined : await startEmbeddedPostgres(config.home);
    const url = config.database.url?.reveal() ?? embedded!.url;
    try {
      await migrate(url, 'up');
      // Migrations above ran on a pool of their own, without the runtime's lock timeout: DDL may wait for traffic.
      // The pid in application_name tells which process a session in pg_stat_activity belongs to.
      const wanted = config.database.runtimeRole;
      const role = wanted ? await runtimeRoleFor(url, wanted) : undefined;
      const database = await Database.connect(url, {
        sessions: config.database.sessions,
        applicationName: `noetl-${process.pid}`,
        ...(role ? { role } : {}),
      });
      return new DatabaseConnection(database, url, embedded);
    } catch (error) {
      await embedded?.stop();
      throw error;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
    await this.embedded?.stop();
  }
}

@Global()
@Module({
  providers: [
    {
      provide: DatabaseConnection,
      useFactory: (config: NoetlConfig) => DatabaseConnection.open(config),
      inject: [NOETL_CONFIG],
    },
    { provide: Database, useFactory: (connection: DatabaseConnection) => connection.database, inject: [DatabaseConnection] },
  ],
  exports: [DatabaseConnection, Database],
})
export class DatabaseModule {}

/** `SELECT 1` within a deadline: the readiness check of every role. */
export async function pingDatabase(database: Database, timeoutMs = 2000): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'down'>((resolve) => (timer = setTimeout(() => resolve('down'), timeoutMs)));
  try {
    return await Promise.race([
      database.query('SELECT 1').then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
