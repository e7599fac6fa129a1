import { loadConfig } from '@noetl/config';
import type { WorkerView } from '@noetl/runtime';
import type { Command } from 'commander';
import { processOutput, type CliOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, printList } from '../shared/output-format';
import { addServerOption, serverClient, type ServerClient } from '../shared/server-client';

export function registerWorkersCommand(program: Command): void {
  addOutputOptions(addServerOption(program.command('workers').description('list the registered workers with their capacity and status')))
    .option('--status <status>', 'only active, draining, stale or stopped ones (stopped ones are kept an hour)')
    .action(async (opts: WorkersOptions & { server?: string }) => {
      await listWorkers(serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    });
}

export interface WorkersOptions extends OutputOptions {
  status?: WorkerView['status'];
}

/** One line per worker, in columns, or the API's list as JSON/YAML. */
export async function listWorkers(client: ServerClient, options: WorkersOptions, output: CliOutput): Promise<void> {
  const { workers } = await client.workers(options.status);
  await printList(
    workers,
    {
      columns: [
        ['WORKER', (worker: WorkerView) => worker.worker_id],
        ['STATUS', (worker) => worker.status],
        ['SLOTS', (worker) => String(worker.slots)],
        ['FREE', (worker) => String(worker.free_slots)],
        ['TOOLS', (worker) => worker.tools?.join(',') ?? 'all'],
        ['POOL', (worker) => worker.pool ?? '-'],
        ['NODE', (worker) => worker.node],
        ['LAST SEEN', (worker) => worker.last_seen_at],
      ],
      id: (worker) => worker.worker_id,
      empty: 'no workers registered',
    },
    options,
    output,
  );
}
