import { loadConfig } from '@noetl/config';
import type { Command } from 'commander';

export function registerServerCommand(program: Command): void {
  program
    .command('server')
    .description('run the roles of NOETL_ROLES (default all) in one process on PORT (default 8082)')
    .action(async () => {
      // Loaded here: Nest and the engine take a second to load, which every other command would pay.
      const { startServer } = await import('../server/start-server');
      await startServer(loadConfig(process.env));
    });
}
