import { loadConfig } from '@noetl/config';
import type { PoolView, WorkerView } from '@noetl/runtime';
import type { Command } from 'commander';
import { processOutput, type CliOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, printList } from '../shared/output-format';
import { addServerOption, serverClient, type ServerClient } from '../shared/server-client';

export function registerWorkersCommand(program: Command): void {
  addOutputOptions(
    addServerOption(
      program
        .command('workers')
        .description('list the registered workers with their capacity and status, or per pool its workers and backlog'),
    ),
  )
    .option('--status <status>', 'only active, draining, stale or stopped ones (stopped ones are kept an hour)')
    .option('--pools', 'one line per worker pool: its active workers, their slots, and the commands and frames waiting for it')
    .action(async (opts: WorkersOptions & { server?: string }) => {
      await listWorkers(serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    });
}

export interface WorkersOptions extends OutputOptions {
  status?: WorkerView['status'];
  pools?: boolean;
}

/** One line per worker (or per pool with `pools`), in columns, or the API's list as JSON/YAML. */
export async function listWorkers(client: ServerClient, options: WorkersOptions, output: CliOutput): Promise<void> {
  const { workers, pools } = await client.workers(options.status);
  if (options.pools) {
    await listPools(pools, options, output);
    return;
  }
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

/** A pool with backlog and no worker is short of workers: its work waits until one of the pool starts. */
async function listPools(pools: PoolView[], options: OutputOptions, output: CliOutput): Promise<void> {
  await printList(
    pools,
    {
      columns: [
        ['POOL', (pool: PoolView) => pool.pool ?? '-'],
        ['WORKERS', (pool) => String(pool.workers)],
        ['SLOTS', (pool) => String(pool.slots)],
        ['FREE', (pool) => String(pool.free_slots)],
        ['COMMANDS WAITING', (pool) => String(pool.backlog.commands)],
        ['FRAMES WAITING', (pool) => String(pool.backlog.frames)],
      ],
      id: (pool) => pool.pool ?? '-',
      empty: 'no workers and no waiting work',
    },
    options,
    output,
  );
}
