import { loadConfig } from '@noetl/config';
import type { JsonObject } from '@noetl/event-kernel';
import { type Command, InvalidArgumentError } from 'commander';
import { processOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions } from '../shared/output-format';
import { addSetOption } from '../shared/set-option';
import type { RunOptions } from '../run/run-playbook';

function parseTimeoutMs(text: string): number {
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new InvalidArgumentError(`expected a positive number of seconds, got "${text}"`);
  return seconds * 1000;
}

export function registerRunCommand(program: Command): void {
  addOutputOptions(
    addSetOption(
      program
        .command('run')
        .description('run a playbook in this process (embedded PostgreSQL when DATABASE_URL is unset); exit code 0 when it completes')
        .argument('<file>', 'playbook YAML file'),
    ),
  )
    .option('--timeout <seconds>', 'cancel the execution when it runs longer', parseTimeoutMs)
    .action(async (file: string, opts: OutputOptions & { set?: JsonObject; timeout?: number }) => {
      const interrupt = new AbortController();
      const onSigint = () => interrupt.abort();
      process.once('SIGINT', onSigint);
      process.once('SIGTERM', onSigint);
      try {
        // Loaded here: the engine and Nest take a second to load, which every other command would pay.
        const { runPlaybook } = await import('../run/run-playbook');
        const options: RunOptions = { ...opts, timeoutMs: opts.timeout, signal: interrupt.signal };
        process.exitCode = await runPlaybook(file, options, processOutput(), loadConfig(process.env));
      } finally {
        process.removeListener('SIGINT', onSigint);
        process.removeListener('SIGTERM', onSigint);
      }
    });
}
