import { loadConfig } from '@noetl/config';
import type { Command } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { printExecution } from '../shared/print-execution';
import { addServerOption, type ServerClient, serverClient } from '../shared/server-client';
import { watchExecution } from '../shared/watch-execution';

export interface StatusOptions {
  /** Follow the execution to its end (showing progress); the exit code is then 0 only when it completed. */
  watch?: boolean;
  json?: boolean;
}

/** Prints an execution (its steps, loops, result and error). Returns the exit code. */
export async function showStatus(id: string, client: ServerClient, options: StatusOptions, output: CliOutput): Promise<number> {
  if (!options.watch) {
    printExecution(await client.execution(id), output, { json: options.json, steps: true });
    return 0;
  }
  const end = await watchExecution(() => client.execution(id), output, { quiet: options.json });
  return printExecution(end.detail, output, { json: options.json });
}

export function registerStatusCommand(program: Command): void {
  addServerOption(program.command('status').description('show an execution; --watch follows it to its end'))
    .argument('<id>', 'execution id')
    .option('--watch', 'poll until the execution ends; exit code 0 only when it completed')
    .option('--json', 'print the execution as JSON')
    .action(async (id: string, opts: { server?: string; watch?: boolean; json?: boolean }) => {
      process.exitCode = await showStatus(id, serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    });
}
