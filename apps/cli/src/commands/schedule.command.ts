import { loadConfig } from '@noetl/config';
import { OVERLAP_POLICIES, type OverlapPolicy } from '@noetl/dsl';
import type { JsonObject } from '@noetl/event-kernel';
import type { ScheduleInput, ScheduleView } from '@noetl/runtime';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { processOutput, type CliOutput } from '../shared/cli-output';
import { addServerOption, serverClient, type ServerClient } from '../shared/server-client';
import { addSetOption } from '../shared/set-option';

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

  addServerOption(addSetOption(schedule.command('create').description('schedule a registered playbook (--set builds the payload of every execution)')))
    .argument('<path>', 'catalog path of the playbook')
    .option('--cron <expr>', '5 fields: minute hour day-of-month month day-of-week')
    .option('--every <seconds>', 'fire every this many seconds instead of a cron expression', wholeNumber)
    .option('--timezone <zone>', 'IANA time zone of the cron expression (default UTC)')
    .addOption(new Option('--overlap <policy>', 'while the last execution still runs (default skip)').choices(OVERLAP_POLICIES))
    .option('--catchup <seconds>', 'how late a fire time may still start (default 60)', wholeNumber)
    .option('--jitter <seconds>', 'start each fire time up to this much later', wholeNumber)
    .option('--version <n>', 'pin this playbook version (default: the latest at each fire)', wholeNumber)
    .option('--paused', 'create it paused')
    .action(async (path: string, opts: CreateScheduleOptions & { server?: string }) => {
      await createSchedule(client(opts), path, opts, processOutput());
    });

  addServerOption(schedule.command('list').description('list the schedules'))
    .option('--path <path>', 'only the schedules of this playbook')
    .option('--json', 'print the list as JSON')
    .action(async (opts: { server?: string; path?: string; json?: boolean }) => {
      await listSchedules(client(opts), { json: opts.json === true, ...(opts.path !== undefined ? { path: opts.path } : {}) }, processOutput());
    });

  for (const [name, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    addServerOption(schedule.command(name).description(paused ? 'stop firing (nothing fires while paused)' : 'fire again from the next fire time (the pause is not caught up)'))
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

  addServerOption(schedule.command('trigger').description("start the schedule's playbook now; prints the execution id"))
    .argument('<id>', 'schedule id')
    .action(async (id: string, opts: { server?: string }) => {
      const triggered = await client(opts).triggerSchedule(id);
      processOutput().out(triggered.execution_id);
    });
}

export async function createSchedule(client: ServerClient, path: string, opts: CreateScheduleOptions, output: CliOutput): Promise<ScheduleView> {
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
  output.out(`${created.schedule_id} ${created.path} ${when(created)} ${created.paused ? 'paused' : `next ${created.next_fire_time}`}`);
  return created;
}

const COLUMNS = ['ID', 'PATH', 'WHEN', 'OVERLAP', 'NEXT', 'FIRED', 'SKIPPED', 'LAST EXECUTION'];

/** One line per schedule, in columns; `--json` prints the API's list. */
export async function listSchedules(client: ServerClient, options: { json: boolean; path?: string }, output: CliOutput): Promise<void> {
  const { schedules } = await client.schedules(options.path);
  if (options.json) {
    output.out(JSON.stringify(schedules, null, 2));
    return;
  }
  if (schedules.length === 0) {
    output.out('no schedules');
    return;
  }
  const rows = [COLUMNS, ...schedules.map(row)];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  for (const cells of rows) output.out(cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
}

export async function setPaused(client: ServerClient, id: string, paused: boolean, output: CliOutput): Promise<void> {
  const schedule = await client.updateSchedule(id, { paused });
  output.out(paused ? `schedule ${id} paused` : `schedule ${id} resumed; next fire ${schedule.next_fire_time}`);
}

function row(schedule: ScheduleView): string[] {
  return [
    schedule.schedule_id,
    schedule.version === null ? schedule.path : `${schedule.path} v${schedule.version}`,
    when(schedule),
    schedule.overlap,
    schedule.paused ? 'paused' : (schedule.next_fire_time ?? '-'),
    String(schedule.fired),
    String(schedule.skipped),
    schedule.last_execution_id ?? '-',
  ];
}

function when(schedule: ScheduleView): string {
  return schedule.cron !== null ? `cron "${schedule.cron}" ${schedule.timezone ?? 'UTC'}` : `every ${schedule.interval_seconds}s`;
}

function wholeNumber(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(`expected a whole number, got "${text}"`);
  return value;
}
