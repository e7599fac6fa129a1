import { loadConfig } from '@noetl/config';
import type { Command } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, printItem } from '../shared/output-format';
import { readPlaybookFile } from '../shared/read-playbook-file';
import { addServerOption, type ServerClient, serverClient, ServerError } from '../shared/server-client';

/** Registers each file; prints `path vN catalog_id` per playbook (its catalog id with --quiet), or the problems of a rejected one. Returns the exit code. */
export async function registerFiles(
  files: string[],
  client: ServerClient,
  output: CliOutput,
  options: OutputOptions = {},
): Promise<number> {
  let failed = 0;
  for (const file of files) {
    const content = readPlaybookFile(file, output.err);
    if (content === undefined) {
      failed += 1;
      continue;
    }
    try {
      const registered = await client.register(content);
      await printItem(registered, registered.catalog_id, options, output, () =>
        output.out(`${registered.path} v${registered.version} ${registered.catalog_id} (${file})`),
      );
    } catch (error) {
      if (!(error instanceof ServerError && error.code === 'invalid_playbook')) throw error;
      // Loaded here: the DSL's formatter is not worth loading for a registration that succeeds.
      const { printProblems } = await import('../shared/playbook-problems');
      if (!printProblems(file, error.details, output.err)) throw error;
      failed += 1;
    }
  }
  return failed > 0 ? 1 : 0;
}

export function registerRegisterCommand(program: Command): void {
  addOutputOptions(addServerOption(program.command('register').description('register playbook files in the catalog of a running server')))
    .argument('<files...>', 'playbook YAML files')
    .action(async (files: string[], opts: OutputOptions & { server?: string }) => {
      process.exitCode = await registerFiles(files, serverClient(loadConfig(process.env), opts.server), processOutput(), opts);
    });
}
