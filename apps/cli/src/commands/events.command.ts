import { loadConfig } from '@noetl/config';
import type { EventView } from '@noetl/runtime';
import type { Command } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { addServerOption, type ServerClient, serverClient } from '../shared/server-client';
import { wholeNumberOption } from '../shared/whole-number-option';

export interface EventsOptions {
  /** Only these event types. */
  type?: string[];
  /** Events per page; default 100. */
  limit?: number;
  /** Follow `next_after` through every page, not just the first. */
  all?: boolean;
  /** One JSON document per event instead of a summary line. */
  json?: boolean;
}

/** Prints an execution's events in ledger order. */
export async function printEvents(id: string, client: ServerClient, options: EventsOptions, output: CliOutput): Promise<void> {
  let after: string | undefined;
  do {
    const page = await client.events(id, { after, limit: options.limit ?? 100, type: options.type });
    for (const event of page.events) output.out(options.json ? JSON.stringify(event) : formatEvent(event));
    after = page.events.length ? (page.next_after ?? undefined) : undefined;
  } while (options.all && after !== undefined);
}

/** `2026-01-01T00:00:00.000Z 123 command.completed step=fetch status=COMPLETED`. */
export function formatEvent(event: EventView): string {
  const facts = [
    event.step && `step=${event.step}`,
    event.status && `status=${event.status}`,
    event.loop_id && `loop=${event.loop_id}`,
    event.frame_id && `frame=${event.frame_id}`,
    event.command_id && `command=${event.command_id}`,
  ].filter(Boolean);
  return [event.created_at, event.event_id, event.event_type, ...facts].join(' ');
}

export function registerEventsCommand(program: Command): void {
  addServerOption(program.command('events').description("list an execution's events in ledger order"))
    .argument('<id>', 'execution id')
    .option('--type <type>', 'only this event type (repeatable)', (type: string, types: string[] = []) => [...types, type])
    .option('--limit <n>', 'events per page (default 100)', wholeNumberOption)
    .option('--all', 'every page, not just the first')
    .option('--json', 'one JSON document per event')
    .action(async (id: string, opts: EventsOptions & { server?: string }) => {
      await printEvents(id, serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    });
}
