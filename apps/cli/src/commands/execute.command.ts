import { loadConfig } from '@noetl/config';
import type { JsonObject } from '@noetl/event-kernel';
import { type Command, InvalidArgumentError } from 'commander';
import { processOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, printItem } from '../shared/output-format';
import { addServerOption, serverClient } from '../shared/server-client';
import { addSetOption } from '../shared/set-option';

function parseVersion(text: string): number {
  const version = Number(text);
  if (!Number.isInteger(version) || version < 1) throw new InvalidArgumentError(`expected a version number >= 1, got "${text}"`);
  return version;
}

export function registerExecuteCommand(program: Command): void {
  addOutputOptions(
    addServerOption(
      addSetOption(
        program
          .command('execute')
          .description('start an execution of a registered playbook on a running server; prints its id (for ID=$(noetl execute ...))'),
      ),
    ),
  )
    .argument('<path>', 'catalog path of the playbook')
    .option('--version <n>', 'playbook version (default: the latest)', parseVersion)
    .action(async (path: string, opts: OutputOptions & { server?: string; version?: number; set?: JsonObject }) => {
      const client = serverClient(loadConfig(process.env), opts.server);
      const started = await client.execute({ path, ...(opts.version ? { version: opts.version } : {}), payload: opts.set ?? {} });
      const output = processOutput();
      await printItem(started, started.execution_id, opts, output, () => output.out(started.execution_id));
    });
}
