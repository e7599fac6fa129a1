import { loadConfig } from '@noetl/config';
import type { Command } from 'commander';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply (up) or revert one (down) schema migration; embedded PostgreSQL when DATABASE_URL is unset')
    .argument('[direction]', 'up | down', 'up')
    .action(async (direction: string) => {
      if (direction !== 'up' && direction !== 'down') throw new Error(`direction must be "up" or "down", got "${direction}"`);
      const { migrate, startEmbeddedPostgres } = await import('@noetl/storage');
      const config = loadConfig(process.env);
      const embedded = config.database.url ? undefined : await startEmbeddedPostgres(config.home);
      try {
        const url = config.database.url?.reveal() ?? embedded!.url;
        const names = await migrate(url, direction);
        process.stdout.write(names.length ? `${direction}: ${names.join(', ')}\n` : `${direction}: nothing to do\n`);
      } finally {
        await embedded?.stop();
      }
    });
}
