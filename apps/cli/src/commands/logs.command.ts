import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '@noetl/config';
import type { EventView } from '@noetl/runtime';
import type { Command } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { addServerOption, type ServerClient, serverClient } from '../shared/server-client';
import { formatEvent } from './events.command';

export interface LogsOptions {
  /** Keep printing new events until the execution ends. */
  follow?: boolean;
  /** Between polls while following; default 500 ms. */
  intervalMs?: number;
}

/**
 * `noetl logs <id>`: the execution's events as lines, each with the error
 * message it carries and what its user code printed last; with --follow,
 * new ones as they come until it ends.
 */
export async function printLogs(id: string, client: ServerClient, options: LogsOptions, output: CliOutput): Promise<void> {
  let after: string | undefined;
  let ended = false;
  for (;;) {
    const page = await client.events(id, { after, limit: 1000 });
    for (const event of page.events) for (const line of logLines(event)) output.out(line);
    after = page.events.at(-1)?.event_id ?? after;
    if (page.next_after !== null) continue;
    // Once it has ended, one more read takes the events appended before its status changed.
    if (!options.follow || ended) return;
    ended = (await client.execution(id)).status !== 'RUNNING';
    if (!ended) await sleep(options.intervalMs ?? 500);
  }
}

/** The event's line, then the lines its command's user code printed last (kept in its terminal event), indented, by stream. */
function logLines(event: EventView): string[] {
  const message = errorMessage(event.payload);
  const line = message === undefined ? formatEvent(event) : `${formatEvent(event)} error=${JSON.stringify(message)}`;
  return [line, ...printedLines(event.payload).map(({ stream, text }) => `    ${stream}| ${text}`)];
}

function printedLines(payload: EventView['payload']): { stream: string; text: string }[] {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || !Array.isArray(payload.output)) return [];
  return payload.output.flatMap((line) =>
    typeof line === 'object' && line !== null && !Array.isArray(line) && typeof line.stream === 'string' && typeof line.text === 'string'
      ? [{ stream: line.stream, text: line.text }]
      : [],
  );
}

function errorMessage(payload: EventView['payload']): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const { error } = payload;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return undefined;
  return typeof error.message === 'string' ? error.message : undefined;
}

export function registerLogsCommand(program: Command): void {
  addServerOption(
    program.command('logs').description("an execution's events as lines, with their errors; --follow prints new ones until it ends"),
  )
    .argument('<id>', 'execution id')
    .option('-f, --follow', 'keep printing until the execution ends')
    .action(async (id: string, opts: LogsOptions & { server?: string }) => {
      await printLogs(id, serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    });
}
