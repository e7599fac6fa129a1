import { loadConfig } from '@noetl/config';
import type { Command } from 'commander';
import { processOutput } from '../shared/cli-output';
import { addServerOption, serverClient } from '../shared/server-client';

export function registerCancelCommand(program: Command): void {
  addServerOption(program.command('cancel').description('cancel a running execution (and its child executions)'))
    .argument('<id>', 'execution id')
    .option('--reason <text>', 'why, recorded on the execution.cancelled event')
    .action(async (id: string, opts: { server?: string; reason?: string }) => {
      await serverClient(loadConfig(process.env), opts.server).cancel(id, opts.reason);
      processOutput().out(`cancel of execution ${id} requested`);
    });
}
