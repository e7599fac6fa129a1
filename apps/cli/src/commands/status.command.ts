import { loadConfig } from '@noetl/config';
import type { Command } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, outputFormat } from '../shared/output-format';
import { printExecution } from '../shared/print-execution';
import { addServerOption, type ServerClient, serverClient } from '../shared/server-client';

export interface StatusOptions extends OutputOptions {
  /** Follow the execution to its end (showing progress); the exit code is then 0 only when it completed. */
  watch?: boolean;
}

/** Prints an execution (its steps, loops, result and error). Returns the exit code. */
export async function showStatus(id: string, client: ServerClient, options: StatusOptions, output: CliOutput): Promise<number> {
  if (!options.watch) {
    await printExecution(await client.execution(id), output, { ...options, steps: true });
    return 0;
  }
  // Loaded here: the progress display is only for --watch.
  const { watchExecution } = await import('../shared/watch-execution');
  const end = await watchExecution(() => client.execution(id), output, { quiet: options.quiet || outputFormat(options) !== 'table' });
  return printExecution(end.detail, output, options);
}

export function registerStatusCommand(program: Command): void {
  addOutputOptions(addServerOption(program.command('status').description('show an execution; --watch follows it to its end')))
    .argument('<id>', 'execution id')
    .option('--watch', 'poll until the execution ends; exit code 0 only when it completed')
    .action(async (id: string, opts: StatusOptions & { server?: string }) => {
      process.exitCode = await showStatus(id, serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    });
}
