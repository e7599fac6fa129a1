import { loadConfig } from '@noetl/config';
import type { Command } from 'commander';

export function registerProjectorCommand(program: Command): void {
  const projector = program.command('projector').description('the projections the API reads');
  projector
    .command('rebuild')
    .description('drop projections and fold them again from the ledger (DATABASE_URL, else the embedded PostgreSQL)')
    .option('--execution <id...>', 'only these executions')
    .option('--all', 'every execution of the tenant')
    .option('--tenant <id>', 'the tenant (default NOETL_TENANT_ID)')
    .option('--organization <id>', 'the organization (default NOETL_ORGANIZATION_ID)')
    .action(async (opts: { execution?: string[]; all?: boolean; tenant?: string; organization?: string }) => {
      if (!opts.all === !opts.execution) throw new Error('give --execution <id...> or --all');
      const [{ DatabaseConnection }, { rebuildProjections }] = await Promise.all([import('@noetl/platform'), import('@noetl/runtime')]);
      const config = loadConfig(process.env);
      const scope = {
        tenantId: opts.tenant ?? config.tenancy.tenantId,
        organizationId: opts.organization ?? config.tenancy.organizationId,
      };
      const connection = await DatabaseConnection.open(config);
      try {
        const count = await rebuildProjections(connection.database, config, opts.execution, scope);
        process.stdout.write(`rebuilt ${count} projection(s) from the ledger\n`);
      } finally {
        await connection.onApplicationShutdown();
      }
    });
}
