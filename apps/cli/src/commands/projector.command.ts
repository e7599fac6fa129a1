import { loadConfig } from '@noetl/config';
import { DatabaseConnection } from '@noetl/platform';
import { rebuildProjections } from '@noetl/runtime';
import type { Command } from 'commander';

export function registerProjectorCommand(program: Command): void {
  const projector = program.command('projector').description('the projections the API reads');
  projector
    .command('rebuild')
    .description('drop projections and fold them again from the ledger (DATABASE_URL, else the embedded PostgreSQL)')
    .option('--execution <id...>', 'only these executions')
    .option('--all', 'every execution of the tenant')
    .action(async (opts: { execution?: string[]; all?: boolean }) => {
      if (!opts.all === !opts.execution) throw new Error('give --execution <id...> or --all');
      const config = loadConfig(process.env);
      const connection = await DatabaseConnection.open(config);
      try {
        const count = await rebuildProjections(connection.database, config, opts.execution);
        process.stdout.write(`rebuilt ${count} projection(s) from the ledger\n`);
      } finally {
        await connection.onApplicationShutdown();
      }
    });
}
