import { loadConfig } from '@noetl/config';
import type { EventView } from '@noetl/runtime';
import { type Command, InvalidArgumentError } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, outputFormat, serialize } from '../shared/output-format';
import { addServerOption, type ServerClient, serverClient } from '../shared/server-client';
import { wholeNumberOption } from '../shared/whole-number-option';

export interface EventsOptions extends OutputOptions {
  /** Only these event types. */
  type?: string[];
  /** Events per page; default 100. */
  limit?: number;
  /** Start after this event id (the `next_after` a cut page names). */
  after?: string;
  /** Follow `next_after` through every page, not just the first. */
  all?: boolean;
}

/**
 * Prints an execution's events in ledger order: a line each, their ids
 * (--quiet), or one JSON (YAML) document each. A page cut at the limit says
 * so on stderr, with how to read on.
 */
export async function printEvents(id: string, client: ServerClient, options: EventsOptions, output: CliOutput): Promise<void> {
  await checkEventTypes(options.type ?? []);
  const limit = options.limit ?? 100;
  const format = outputFormat(options);
  let after = options.after;
  for (;;) {
    const page = await client.events(id, { after, limit, type: options.type });
    for (const event of page.events) {
      if (options.quiet) output.out(event.event_id);
      else if (format === 'table') output.out(formatEvent(event));
      // One document a line (JSON), or YAML documents: each event stands alone, so pages stream.
      else output.out(format === 'json' ? JSON.stringify(event) : `---\n${await serialize(event, 'yaml')}`);
    }
    const more = page.events.length === limit && page.next_after !== null;
    if (!more) return;
    if (!options.all) {
      output.err(
        `stopped at a full page of ${limit} events; there may be more: --after ${page.next_after} for the next page, --all for every page`,
      );
      return;
    }
    after = page.next_after ?? undefined;
  }
}

/** An unknown --type would match nothing, silently: it is refused with the list of the event types there are. */
async function checkEventTypes(types: string[]): Promise<void> {
  if (types.length === 0) return;
  const { EVENT_TYPES } = await import('@noetl/event-kernel');
  const unknown = types.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0)
    throw new InvalidArgumentError(`no such event type: ${unknown.join(', ')}; the event types are ${EVENT_TYPES.join(', ')}`);
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
  addOutputOptions(addServerOption(program.command('events').description("list an execution's events in ledger order")))
    .argument('<id>', 'execution id')
    .option('--type <type>', 'only this event type (repeatable)', (type: string, types: string[] = []) => [...types, type])
    .option('--limit <n>', 'events per page (default 100)', wholeNumberOption)
    .option('--after <event-id>', 'start after this event (the next page of a cut one)')
    .option('--all', 'every page, not just the first')
    .action(async (id: string, opts: EventsOptions & { server?: string }) => {
      await printEvents(id, serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    });
}
