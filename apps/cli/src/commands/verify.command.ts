import { loadConfig } from '@noetl/config';
import type { LedgerVerificationView } from '@noetl/runtime';
import type { Command } from 'commander';
import { processOutput, type CliOutput } from '../shared/cli-output';
import { addServerOption, serverClient, type ServerClient } from '../shared/server-client';

/**
 * `noetl verify <id> | --all`: the tamper check of executions' ledgers
 * (GET /api/executions/{id}/verify). A line per execution; exit 1 when any
 * ledger is not what was written.
 */
export function registerVerifyCommand(program: Command): void {
  addServerOption(
    program
      .command('verify')
      .description("check that executions' ledgers are what was written: checksums, the hash chain, no event missing; exit 1 on any break"),
  )
    .argument('[id]', 'execution id')
    .option('--all', 'every execution of your tenant, newest first')
    .action(async (id: string | undefined, opts: { server?: string; all?: boolean }) => {
      if ((id === undefined) === (opts.all !== true)) throw new Error('give an execution id or --all');
      const client = serverClient(loadConfig(process.env), opts.server);
      const broken = id !== undefined ? await verifyOne(client, id, processOutput()) : await verifyAll(client, processOutput());
      if (broken > 0) process.exitCode = 1;
    });
}

/** Prints the verification of `id`; 1 when its ledger is broken, else 0. */
export async function verifyOne(client: ServerClient, id: string, output: CliOutput): Promise<number> {
  const verified = await client.verify(id);
  output.out(lineOf(verified));
  return verified.ok ? 0 : 1;
}

/** Verifies every execution, a page of the list at a time; how many are broken. */
export async function verifyAll(client: ServerClient, output: CliOutput): Promise<number> {
  let broken = 0;
  let checked = 0;
  let cursor: string | undefined;
  do {
    const page = await client.executions({ limit: 200, ...(cursor !== undefined ? { cursor } : {}) });
    for (const execution of page.executions) {
      broken += await verifyOne(client, execution.execution_id, output);
      checked += 1;
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  output.out(`${checked} execution(s) verified, ${broken} broken`);
  return broken;
}

function lineOf(verified: LedgerVerificationView): string {
  if (verified.ok) return `${verified.execution_id} ok (${verified.events} events)`;
  return `${verified.execution_id} BROKEN at position ${verified.first_bad_position}: ${verified.reason}`;
}
