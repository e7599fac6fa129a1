import { loadConfig } from '@noetl/config';
import type { ExecutionStatus } from '@noetl/event-kernel';
import type { ExecutionSummary, ListExecutionsQuery } from '@noetl/runtime';
import { type Command, InvalidArgumentError } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, printList } from '../shared/output-format';
import { addServerOption, type ServerClient, serverClient } from '../shared/server-client';
import { wholeNumberOption } from '../shared/whole-number-option';

export interface ListExecutionsOptions extends OutputOptions {
  status?: ExecutionStatus;
  path?: string;
  since?: string;
  parent?: string;
  /** At most this many, newest first; default 50. */
  limit?: number;
}

/** `noetl executions list`: GET /api/executions, newest first, following its pages up to `--limit`. */
export function registerExecutionsCommand(program: Command): void {
  const executions = program.command('executions').description('the executions of the tenant');
  addOutputOptions(addServerOption(executions.command('list').description('list executions, newest first')))
    .option('--status <status>', 'only RUNNING, COMPLETED, FAILED or CANCELLED ones', (text: string) => text.toUpperCase())
    .option('--path <path>', 'only those of this playbook path')
    .option('--since <time>', 'only those started at or after this ISO time, or this long ago: 30m, 2h, 7d', (text: string) =>
      sinceOption(text),
    )
    .option('--parent <id>', 'only the child executions of this execution')
    .option('--limit <n>', 'at most this many (default 50)', wholeNumberOption)
    .action(async (opts: ListExecutionsOptions & { server?: string }) => {
      await listExecutions(serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    });
}

export async function listExecutions(client: ServerClient, options: ListExecutionsOptions, output: CliOutput): Promise<void> {
  const wanted = options.limit ?? 50;
  const found: ExecutionSummary[] = [];
  let cursor: string | undefined;
  do {
    const query: ListExecutionsQuery = {
      status: options.status,
      path: options.path,
      started_after: options.since,
      parent: options.parent,
      limit: Math.min(wanted - found.length, 1000),
      cursor,
    };
    const page = await client.executions(query);
    found.push(...page.executions);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined && found.length < wanted);
  await printList(
    found,
    {
      columns: [
        ['ID', (execution) => execution.execution_id],
        ['PATH', (execution) => (execution.path === null ? '-' : `${execution.path} v${execution.version}`)],
        ['STATUS', (execution) => execution.status],
        ['STARTED', (execution) => execution.started_at ?? '-'],
        ['COMPLETED', (execution) => execution.completed_at ?? '-'],
        ['PARENT', (execution) => execution.parent_execution_id ?? '-'],
      ],
      id: (execution) => execution.execution_id,
      empty: 'no executions',
    },
    options,
    output,
  );
}

const AGO = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`: an ISO time, or `30m`/`2h`/`7d` ago, as an ISO time. */
export function sinceOption(text: string, now = Date.now()): string {
  const ago = AGO.exec(text);
  if (ago) return new Date(now - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS]).toISOString();
  if (Number.isNaN(Date.parse(text))) throw new InvalidArgumentError(`expected an ISO time or a duration like 30m, 2h, 7d; got "${text}"`);
  return text;
}
