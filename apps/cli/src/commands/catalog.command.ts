import { loadConfig } from '@noetl/config';
import type { Command } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, printList } from '../shared/output-format';
import { addServerOption, type ServerClient, serverClient } from '../shared/server-client';

/** `noetl catalog list`: GET /api/catalog, the latest version of every registered playbook. */
export function registerCatalogCommand(program: Command): void {
  const catalog = program.command('catalog').description('the registered playbooks');
  addOutputOptions(addServerOption(catalog.command('list').description('the latest version of every registered playbook'))).action(
    async (opts: OutputOptions & { server?: string }) => {
      await listCatalog(serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    },
  );
}

export async function listCatalog(client: ServerClient, options: OutputOptions, output: CliOutput): Promise<void> {
  const { entries } = await client.catalog();
  await printList(
    entries,
    {
      columns: [
        ['PATH', (entry) => entry.path],
        ['VERSION', (entry) => String(entry.version)],
        ['NAME', (entry) => entry.name],
        ['CATALOG ID', (entry) => entry.catalog_id],
        ['REGISTERED', (entry) => entry.created_at],
      ],
      id: (entry) => entry.path,
      empty: 'no playbooks registered',
    },
    options,
    output,
  );
}
