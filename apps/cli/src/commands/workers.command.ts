import { loadConfig } from '@noetl/config';
import type { WorkerView } from '@noetl/runtime';
import type { Command } from 'commander';
import { processOutput, type CliOutput } from '../shared/cli-output';
import { addServerOption, serverClient, type ServerClient } from '../shared/server-client';

export function registerWorkersCommand(program: Command): void {
  addServerOption(program.command('workers').description('list the registered workers with their capacity and status'))
    .option('--json', 'print the list as JSON')
    .action(async (opts: { server?: string; json?: boolean }) => {
      await listWorkers(serverClient(loadConfig(process.env), opts.server), { json: opts.json === true }, processOutput());
    });
}

const COLUMNS = ['WORKER', 'STATUS', 'SLOTS', 'FREE', 'TOOLS', 'POOL', 'NODE', 'LAST SEEN'];

/** One line per worker, in columns; `--json` prints the API's list. */
export async function listWorkers(client: ServerClient, options: { json: boolean }, output: CliOutput): Promise<void> {
  const { workers } = await client.workers();
  if (options.json) {
    output.out(JSON.stringify(workers, null, 2));
    return;
  }
  if (workers.length === 0) {
    output.out('no workers registered');
    return;
  }
  const rows = [COLUMNS, ...workers.map(row)];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  for (const cells of rows) output.out(cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
}

function row(worker: WorkerView): string[] {
  return [
    worker.worker_id,
    worker.status,
    String(worker.slots),
    String(worker.free_slots),
    worker.tools?.join(',') ?? 'all',
    worker.pool ?? '-',
    worker.node,
    worker.last_seen_at,
  ];
}
