import { loadConfig } from '@noetl/config';
import type { OverlapPolicy } from '@noetl/dsl';
import type { JsonObject } from '@noetl/event-kernel';
import type { ScheduleInput, ScheduleView } from '@noetl/runtime';
import { type Command, InvalidArgumentError } from 'commander';
import { processOutput, type CliOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, printItem, printList } from '../shared/output-format';
import { addServerOption, serverClient, type ServerClient } from '../shared/server-client';
import { addSetOption } from '../shared/set-option';

/**
 * OVERLAP_POLICIES of @noetl/dsl, which is too heavy to load for `noetl
 * help`; schedule.command.spec.ts keeps the two equal, and the server
 * rejects any other value.
 */
export const OVERLAP_HELP = 'skip, buffer_one or allow';

export interface CreateScheduleOptions {
  cron?: string;
  every?: number;
  timezone?: string;
  set?: JsonObject;
  overlap?: OverlapPolicy;
  catchup?: number;
  jitter?: number;
  paused?: boolean;
  version?: number;
}

/** `noetl schedule create|list|pause|resume|delete|trigger` (DESIGN.md s6 `/api/schedules`). */
export function registerScheduleCommand(program: Command): void {
  const schedule = program.command('schedule').description('start registered playbooks on a cron expression or an interval');
  const client = (opts: { server?: string }): ServerClient => serverClient(loadConfig(process.env), opts.server);

  addOutputOptions(
    addServerOption(
      addSetOption(schedule.command('create').description('schedule a registered playbook (--set builds the payload of every execution)')),
    ),
  )
    .argument('<path>', 'catalog path of the playbook')
    .option('--cron <expr>', '5 fields: minute hour day-of-month month day-of-week')
    .option('--every <seconds>', 'fire every this many seconds instead of a cron expression', wholeNumber)
    .option('--timezone <zone>', 'IANA time zone of the cron expression (default UTC)')
    .option('--overlap <policy>', `while the last execution still runs: ${OVERLAP_HELP} (default skip)`)
    .option('--catchup <seconds>', 'how late a fire time may still start (default 60)', wholeNumber)
    .option('--jitter <seconds>', 'start each fire time up to this much later', wholeNumber)
    .option('--version <n>', 'pin this playbook version (default: the latest at each fire)', wholeNumber)
    .option('--paused', 'create it paused')
    .action(async (path: string, opts: CreateScheduleOptions & OutputOptions & { server?: string }) => {
      await createSchedule(client(opts), path, opts, processOutput(), opts);
    });

  addOutputOptions(addServerOption(schedule.command('list').description('list the schedules')))
    .option('--path <path>', 'only the schedules of this playbook')
    .action(async (opts: OutputOptions & { server?: string; path?: string }) => {
      await listSchedules(client(opts), opts, processOutput());
    });

  for (const [name, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    addServerOption(
      schedule
        .command(name)
        .description(
          paused ? 'stop firing (nothing fires while paused)' : 'fire again from the next fire time (the pause is not caught up)',
        ),
    )
      .argument('<id>', 'schedule id')
      .action(async (id: string, opts: { server?: string }) => {
        await setPaused(client(opts), id, paused, processOutput());
      });
  }

  addServerOption(schedule.command('delete').description('delete a schedule (its executions stay)'))
    .argument('<id>', 'schedule id')
    .action(async (id: string, opts: { server?: string }) => {
      await client(opts).deleteSchedule(id);
      processOutput().out(`schedule ${id} deleted`);
    });

  addOutputOptions(addServerOption(schedule.command('trigger').description("start the schedule's playbook now; prints the execution id")))
    .argument('<id>', 'schedule id')
    .action(async (id: string, opts: OutputOptions & { server?: string }) => {
      const triggered = await client(opts).triggerSchedule(id);
      const output = processOutput();
      await printItem(triggered, triggered.execution_id, opts, output, () => output.out(triggered.execution_id));
    });
}

export async function createSchedule(
  client: ServerClient,
  path: string,
  opts: CreateScheduleOptions,
  output: CliOutput,
  print: OutputOptions = {},
): Promise<ScheduleView> {
  const input: ScheduleInput = {
    path,
    ...(opts.cron !== undefined ? { cron: opts.cron } : {}),
    ...(opts.every !== undefined ? { interval_seconds: opts.every } : {}),
    ...(opts.timezone !== undefined ? { timezone: opts.timezone } : {}),
    ...(opts.set !== undefined ? { payload: opts.set } : {}),
    ...(opts.overlap !== undefined ? { overlap: opts.overlap } : {}),
    ...(opts.catchup !== undefined ? { catchup_seconds: opts.catchup } : {}),
    ...(opts.jitter !== undefined ? { jitter_seconds: opts.jitter } : {}),
    ...(opts.version !== undefined ? { version: opts.version } : {}),
    ...(opts.paused ? { paused: true } : {}),
  };
  const created = await client.createSchedule(input);
  await printItem(created, created.schedule_id, print, output, () =>
    output.out(`${created.schedule_id} ${created.path} ${when(created)} ${created.paused ? 'paused' : `next ${created.next_fire_time}`}`),
  );
  return created;
}

/** One line per schedule, in columns, or the API's list as JSON/YAML. */
export async function listSchedules(client: ServerClient, options: OutputOptions & { path?: string }, output: CliOutput): Promise<void> {
  const { schedules } = await client.schedules(options.path);
  await printList(
    schedules,
    {
      columns: [
        ['ID', (schedule) => schedule.schedule_id],
        ['PATH', (schedule) => (schedule.version === null ? schedule.path : `${schedule.path} v${schedule.version}`)],
        ['WHEN', when],
        ['OVERLAP', (schedule) => schedule.overlap],
        ['NEXT', (schedule) => (schedule.paused ? 'paused' : (schedule.next_fire_time ?? '-'))],
        ['FIRED', (schedule) => String(schedule.fired)],
        ['SKIPPED', (schedule) => String(schedule.skipped)],
        ['LAST EXECUTION', (schedule) => schedule.last_execution_id ?? '-'],
      ],
      id: (schedule) => schedule.schedule_id,
      empty: 'no schedules',
    },
    options,
    output,
  );
}

export async function setPaused(client: ServerClient, id: string, paused: boolean, output: CliOutput): Promise<void> {
  const schedule = await client.updateSchedule(id, { paused });
  output.out(paused ? `schedule ${id} paused` : `schedule ${id} resumed; next fire ${schedule.next_fire_time}`);
}

function when(schedule: ScheduleView): string {
  return schedule.cron !== null ? `cron "${schedule.cron}" ${schedule.timezone ?? 'UTC'}` : `every ${schedule.interval_seconds}s`;
}

function wholeNumber(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(`expected a whole number, got "${text}"`);
  return value;
}
