import { loadConfig } from '@noetl/config';
import type { Json, JsonObject } from '@noetl/event-kernel';
import type { DeliveredSignal } from '@noetl/runtime';
import { type Command, InvalidArgumentError } from 'commander';
import { processOutput, type CliOutput } from '../shared/cli-output';
import { addServerOption, serverClient, type ServerClient } from '../shared/server-client';
import { addSetOption } from '../shared/set-option';

export interface SignalOptions {
  set?: JsonObject;
  payload?: Json;
  key?: string;
}

/** `noetl signal <execution> <name>`: delivers a signal to a step that waits for it (kind: wait). */
export function registerSignalCommand(program: Command): void {
  addServerOption(
    addSetOption(program.command('signal').description('send a signal to an execution; a step waiting for it (kind: wait) takes it')),
  )
    .argument('<id>', 'execution id')
    .argument('<name>', 'signal name')
    .option('--payload <json>', 'the payload as one JSON value (instead of --set)', parseJson)
    .option('--key <key>', 'idempotency key: sending again with it delivers nothing more')
    .action(async (id: string, name: string, opts: SignalOptions & { server?: string }) => {
      await sendSignal(serverClient(loadConfig(process.env), opts.server), id, name, opts, processOutput());
    });
}

export async function sendSignal(
  client: ServerClient,
  id: string,
  name: string,
  opts: SignalOptions,
  output: CliOutput,
): Promise<DeliveredSignal> {
  if (opts.set !== undefined && opts.payload !== undefined) throw new InvalidArgumentError('give --set or --payload, not both');
  const delivered = await client.signal(id, name, opts.payload ?? opts.set ?? {}, opts.key);
  output.out(`signal ${delivered.signal} sent to execution ${delivered.execution_id} (event ${delivered.event_id})`);
  return delivered;
}

function parseJson(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new InvalidArgumentError(`expected a JSON value, got ${JSON.stringify(text)}`);
  }
}
