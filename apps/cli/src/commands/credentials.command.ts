import { loadConfig } from '@noetl/config';
import type { Command } from 'commander';
import { type CliOutput, processOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, printList } from '../shared/output-format';
import { addServerOption, type ServerClient, serverClient } from '../shared/server-client';

/** `noetl credentials list`: GET /api/credentials, names and types, never their data. */
export function registerCredentialsCommand(program: Command): void {
  const credentials = program.command('credentials').description('the stored credentials (never their data)');
  addOutputOptions(addServerOption(credentials.command('list').description('every credential: name, type, when it was stored'))).action(
    async (opts: OutputOptions & { server?: string }) => {
      await listCredentials(serverClient(loadConfig(process.env), opts.server), opts, processOutput());
    },
  );
}

export async function listCredentials(client: ServerClient, options: OutputOptions, output: CliOutput): Promise<void> {
  const { credentials } = await client.credentials();
  await printList(
    credentials,
    {
      columns: [
        ['NAME', (credential) => credential.name],
        ['TYPE', (credential) => credential.type],
        ['CREATED', (credential) => credential.created_at],
        ['UPDATED', (credential) => credential.updated_at],
      ],
      id: (credential) => credential.name,
      empty: 'no credentials',
    },
    options,
    output,
  );
}
