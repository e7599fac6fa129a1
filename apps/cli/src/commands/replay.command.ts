import { loadConfig } from '@noetl/config';
import type { Json } from '@noetl/event-kernel';
import type { ReplayState } from '@noetl/runtime';
import type { Command } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, outputFormat, serialize } from '../shared/output-format';
import { addServerOption, type ServerClient, serverClient } from '../shared/server-client';

export interface ReplayOptions extends OutputOptions {
  /** Event ids or ISO times: one for a point, two with `diff`. */
  at: string[];
  diff?: boolean;
}

/** Prints an execution as of a point of its ledger, or what changed between two points. Returns the exit code. */
export async function showReplay(id: string, client: ServerClient, options: ReplayOptions, output: CliOutput): Promise<number> {
  const format = outputFormat(options);
  if (options.diff) {
    const [from, to] = options.at;
    if (options.at.length !== 2 || from === undefined || to === undefined)
      throw new Error('--diff compares two points: give --at A --at B');
    const [before, after, { diffStates }] = await Promise.all([
      client.replay(id, from),
      client.replay(id, to),
      import('@noetl/event-kernel'),
    ]);
    const changes = diffStates(before.state as Json, after.state as Json);
    if (format !== 'table') output.out(await serialize({ from: before.position, to: after.position, changes }, format));
    else {
      output.out(
        `execution ${id}: event ${before.position.event_id} (#${before.position.stream_version}) -> ${after.position.event_id} (#${after.position.stream_version})`,
      );
      for (const change of changes) output.out(`  ${change.path}: ${show(change.before)} -> ${show(change.after)}`);
      if (changes.length === 0) output.out('  no change');
    }
    return 0;
  }
  if (options.at.length > 1) throw new Error('give one --at, or two with --diff');
  const replayed = await client.replay(id, options.at[0]);
  output.out(format !== 'table' ? await serialize(replayed, format) : summary(replayed));
  return 0;
}

function summary(replayed: ReplayState): string {
  const { position } = replayed;
  const lines = [
    `execution ${replayed.execution_id} as of event ${position.event_id} (#${position.stream_version}, ${position.event_time})`,
    `  ${replayed.events_folded} events folded${replayed.seeded_from_snapshot !== null ? ` after snapshot #${replayed.seeded_from_snapshot}` : ''}; reducer ${replayed.reducer_version}, upcasters ${replayed.upcaster_digest.slice(0, 12)}`,
    ...Object.entries(replayed.checksums).map(([surface, sum]) => `  ${surface.padEnd(9)} ${sum}`),
    // The state itself, surface by surface: what the execution looked like at that point.
    ...Object.entries(replayed.state).map(([surface, state]) => `${surface}:\n${indent(JSON.stringify(state, null, 2))}`),
  ];
  return lines.join('\n');
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

function show(value: Json | undefined): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function registerReplayCommand(program: Command): void {
  addOutputOptions(
    addServerOption(
      program
        .command('replay')
        .description("an execution's state as of any of its events, with checksums; --diff shows what changed between two"),
    ),
    { quiet: false },
  )
    .argument('<id>', 'execution id')
    .option('--at <event-id|time>', 'the point (an event id or an ISO time); twice with --diff', collect, [])
    .option('--diff', 'show what changed between the two --at points')
    .action(async (id: string, opts: ReplayOptions & { server?: string }) => {
      process.exitCode = await showReplay(id, serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    });
}
