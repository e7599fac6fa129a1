import { loadConfig } from '@noetl/config';
import type { JsonObject } from '@noetl/event-kernel';
import type { Command } from 'commander';
import { processOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, printItem } from '../shared/output-format';
import { addServerOption, serverClient } from '../shared/server-client';
import { addSetOption } from '../shared/set-option';

/** `noetl rerun <id>`: a new execution that re-runs an ended one, from the start or from a step. */
export function registerRerunCommand(program: Command): void {
  addOutputOptions(
    addServerOption(
      addSetOption(
        program
          .command('rerun')
          .description(
            're-run an ended execution as a new one linked to it, from the start or --from a step (the results of the steps before it are copied); prints the new id',
          ),
      ),
    ),
  )
    .argument('<id>', 'the execution to re-run')
    .option('--from <step>', 'the step to run from (default: the start)')
    .action(async (id: string, opts: OutputOptions & { server?: string; from?: string; set?: JsonObject }) => {
      const client = serverClient(loadConfig(process.env), opts.server);
      const started = await client.rerun(id, {
        ...(opts.from !== undefined ? { from_step: opts.from } : {}),
        ...(opts.set ? { payload: opts.set } : {}),
      });
      const output = processOutput();
      await printItem(started, started.execution_id, opts, output, () => output.out(started.execution_id));
    });
}
