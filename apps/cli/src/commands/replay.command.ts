import { loadConfig } from '@noetl/config';
import { diffStates, type Json } from '@noetl/event-kernel';
import type { ReplayState } from '@noetl/runtime';
import type { Command } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { addServerOption, type ServerClient, serverClient } from '../shared/server-client';

export interface ReplayOptions {
  /** Event ids or ISO times: one for a point, two with `diff`. */
  at: string[];
  diff?: boolean;
  json?: boolean;
}

/** Prints an execution as of a point of its ledger, or what changed between two points. Returns the exit code. */
export async function showReplay(id: string, client: ServerClient, options: ReplayOptions, output: CliOutput): Promise<number> {
  if (options.diff) {
    const [from, to] = options.at;
    if (options.at.length !== 2 || from === undefined || to === undefined) throw new Error('--diff compares two points: give --at A --at B');
    const [before, after] = await Promise.all([client.replay(id, from), client.replay(id, to)]);
    const changes = diffStates(before.state as Json, after.state as Json);
    if (options.json) output.out(JSON.stringify({ from: before.position, to: after.position, changes }, null, 2));
    else {
      output.out(`execution ${id}: event ${before.position.event_id} (#${before.position.stream_version}) -> ${after.position.event_id} (#${after.position.stream_version})`);
      for (const change of changes) output.out(`  ${change.path}: ${show(change.before)} -> ${show(change.after)}`);
      if (changes.length === 0) output.out('  no change');
    }
    return 0;
  }
  if (options.at.length > 1) throw new Error('give one --at, or two with --diff');
  const replayed = await client.replay(id, options.at[0]);
  output.out(options.json ? JSON.stringify(replayed, null, 2) : summary(replayed));
  return 0;
}

function summary(replayed: ReplayState): string {
  const { position } = replayed;
  const lines = [
    `execution ${replayed.execution_id} as of event ${position.event_id} (#${position.stream_version}, ${position.event_time})`,
    `  ${replayed.events_folded} events folded${replayed.seeded_from_snapshot !== null ? ` after snapshot #${replayed.seeded_from_snapshot}` : ''}; reducer ${replayed.reducer_version}, upcasters ${replayed.upcaster_digest.slice(0, 12)}`,
    ...Object.entries(replayed.checksums).map(([surface, sum]) => `  ${surface.padEnd(9)} ${sum}`),
  ];
  return lines.join('\n');
}

function show(value: Json | undefined): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function registerReplayCommand(program: Command): void {
  addServerOption(program.command('replay').description("an execution's state as of any of its events, with checksums; --diff shows what changed between two"))
    .argument('<id>', 'execution id')
    .option('--at <event-id|time>', 'the point (an event id or an ISO time); twice with --diff', collect, [])
    .option('--diff', 'show what changed between the two --at points')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { server?: string; at: string[]; diff?: boolean; json?: boolean }) => {
      process.exitCode = await showReplay(id, serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    });
}
